// The chat webview's esbuild options, shared by esbuild.mjs and the tests that build the webview.
// The page loads one ES module (dist/webview/webview.js); each highlight.js grammar is a chunk of
// its own (dist/webview/chunks/), fetched the first time a code block of its language is shown.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The bundle budget of the page's main module, minified (the grammars are separate chunks). */
export const WEBVIEW_MAIN_BUDGET_BYTES = 400 * 1024;

/** The module the webview imports for its language table (see webview/hljs-languages.d.ts). */
export const LANGUAGE_INDEX_MODULE = 'virtual:hljs-languages';

/**
 * Every grammar highlight.js ships, read at build time: its name, its aliases, and the other grammars
 * it embeds (`subLanguage`, e.g. CSS and JavaScript inside HTML), so the page knows which chunk a
 * fence's language needs without loading any of them.
 * @returns {{ names: string[], aliases: Record<string, string>, requires: Record<string, string[]> }}
 */
export function readLanguageIndex() {
  const hljs = require('highlight.js/lib/core');
  const dir = dirname(require.resolve('highlight.js/lib/languages/bash'));
  const names = readdirSync(dir).filter((f) => /^[\w-]+\.js$/.test(f)).map((f) => f.slice(0, -3)).sort();
  const aliases = {};
  const requires = {};
  for (const name of names) {
    const definition = require(join(dir, `${name}.js`))(hljs);
    for (const alias of definition.aliases ?? []) aliases[alias.toLowerCase()] ??= name;
    const embedded = [...subLanguages(definition)].filter((l) => l !== name && names.includes(l));
    if (embedded.length > 0) requires[name] = embedded.sort();
  }
  // A grammar's own name wins over another grammar's alias of the same spelling.
  for (const name of names) aliases[name] = name;
  return { names, aliases, requires };
}

/** The `subLanguage`s a grammar's modes name, anywhere in its tree (modes can refer to themselves). */
function subLanguages(root) {
  const found = new Set();
  const seen = new Set();
  const visit = (mode) => {
    if (!mode || typeof mode !== 'object' || seen.has(mode)) return;
    seen.add(mode);
    for (const l of [mode.subLanguage ?? []].flat()) found.add(l);
    for (const key of ['contains', 'variants', 'starts']) [mode[key] ?? []].flat().forEach(visit);
  };
  visit(root);
  return found;
}

/** Provides LANGUAGE_INDEX_MODULE: the table, and one dynamic import (hence one chunk) per grammar. */
export const hljsLanguages = {
  name: 'hljs-languages',
  setup(build) {
    build.onResolve({ filter: /^virtual:hljs-languages$/ }, () => ({ path: LANGUAGE_INDEX_MODULE, namespace: 'hljs-languages' }));
    build.onLoad({ filter: /.*/, namespace: 'hljs-languages' }, () => {
      const { names, aliases, requires } = readLanguageIndex();
      const loaders = names.map((n) => `${JSON.stringify(n)}: () => import(${JSON.stringify(`highlight.js/lib/languages/${n}`)})`);
      const contents = [
        `export const aliases = ${JSON.stringify(aliases)};`,
        `export const requires = ${JSON.stringify(requires)};`,
        `const loaders = {${loaders.join(',')}};`,
        'export function load(name) { return loaders[name]().then((m) => m.default); }',
      ].join('\n');
      // Resolved from the repository, where highlight.js is installed.
      return { contents, loader: 'js', resolveDir: dirname(require.resolve('highlight.js/package.json')) };
    });
  },
};

/**
 * The webview bundle: an ES module with code splitting, so `import()` of a grammar becomes a chunk.
 * @param {{ production?: boolean, outdir?: string, entryPoints?: Record<string, string> }} [options]
 * @returns {import('esbuild').BuildOptions}
 */
export function webviewBuildOptions({ production = false, outdir = 'dist/webview', entryPoints = { webview: 'webview/main.ts' } } = {}) {
  return {
    bundle: true,
    platform: 'browser',
    format: 'esm',
    splitting: true,
    target: 'es2022',
    sourcemap: !production,
    minify: production,
    logLevel: 'warning',
    entryPoints,
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [hljsLanguages],
  };
}
