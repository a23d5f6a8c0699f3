// Bundles every entry point. `node esbuild.mjs [--watch] [--production]`.
import * as esbuild from 'esbuild';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { WEBVIEW_MAIN_BUDGET_BYTES, webviewBuildOptions } from './scripts/webviewBuild.mjs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/**
 * The SDK's server package ships as one chunk esbuild must assume has side effects, so every bundle
 * that reaches the core's barrel (the extension too, which never serves) would carry it. It has
 * none on import: bundles that use it keep what they use, the others drop it.
 */
const sdkServerIsPure = {
  name: 'sdk-server-is-pure',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server(\/.*)?$/ }, async (args) => {
      if (args.pluginData?.pure) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: { pure: true } });
      return resolved.errors.length > 0 ? { errors: resolved.errors } : { path: resolved.path, sideEffects: false };
    });
  },
};

/**
 * wordsninja's list holds 126,000 words (1.8 MB of JSON); the segmenter reads only the most
 * frequent SEGMENTER_VOCABULARY of them, so the bundles carry only those, packed. The number is
 * read from the segmenter's source, so the two cannot drift apart.
 */
const segmenterSource = readFileSync(new URL('./src/core/tools/search/WordSegmenter.ts', import.meta.url), 'utf8');
const vocabularySize = Number(/export const SEGMENTER_VOCABULARY = ([\d_]+);/.exec(segmenterSource)?.[1].replaceAll('_', ''));
if (!Number.isInteger(vocabularySize) || vocabularySize <= 0) throw new Error('esbuild.mjs: SEGMENTER_VOCABULARY not found in src/core/tools/search/WordSegmenter.ts');
const segmenterVocabulary = {
  name: 'segmenter-vocabulary',
  setup(build) {
    build.onLoad({ filter: /[\\/]wordsninja[\\/]words-en\.json$/ }, async (args) => {
      const words = JSON.parse(readFileSync(args.path, 'utf8')).slice(0, vocabularySize);
      // Brotli in base64 is 57% of the words as one string; unpacking takes a few ms on first use.
      const packed = brotliCompressSync(words.join(' '), { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).toString('base64');
      const contents = `import { brotliDecompressSync } from 'node:zlib';\nexport default brotliDecompressSync(Buffer.from(${JSON.stringify(packed)}, 'base64')).toString('utf8').split(' ');\n`;
      return { contents, loader: 'js' };
    });
  },
};

const node = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  logLevel: 'warning',
  // jsonc-parser's `main` is a UMD build that esbuild cannot follow; its ESM build bundles cleanly.
  mainFields: ['module', 'main'],
  external: ['vscode'],
  define: { __HARNESS_VERSION__: JSON.stringify(version) },
  plugins: [sdkServerIsPure, segmenterVocabulary],
};

/** @type {esbuild.BuildOptions[]} */
const builds = [
  // The VS Code extension (CommonJS, `vscode` provided by the host).
  { ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js' },
  // The editor-agnostic core as a library: `require('mcp-harness/core')`.
  { ...node, entryPoints: ['src/core/index.ts'], outfile: 'dist/core.js' },
  // The command-line interface.
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // The launcher sandboxed stdio servers run under. ESM, so the sandbox runtime finds its seccomp
  // helper (copied below) beside the bundle through import.meta.url.
  {
    ...node, entryPoints: ['src/core/process/sandbox/sandboxLauncher.ts'], outfile: 'dist/sandbox-launcher.mjs', format: 'esm',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  },
  // Entry the MCP conformance suite runs as its client.
  { ...node, entryPoints: ['test/conformance/client.ts'], outfile: 'dist/conformance-client.js' },
  // Mocha suite that runs inside a real extension host.
  { ...node, entryPoints: ['test/e2e/suite/index.ts'], outfile: 'out/test/e2e/index.js', external: ['vscode', 'mocha'] },
  // The webview bundle (browser): an ES module, and one chunk per highlight.js grammar.
  webviewBuildOptions({ production }),
  // The MCP Apps host (the extension's app bridge): loaded by the chat page when a card first shows an app.
  {
    bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    logLevel: 'warning', entryPoints: ['webview/apps/appHost.ts'], outfile: 'dist/webview/appHost.js',
  },
].filter((b) => Object.values(b.entryPoints).every((e) => existsSync(e)));

// Chunks are named by their hash: drop those of earlier builds.
rmSync('dist/webview', { recursive: true, force: true });

// The sandbox runtime's prebuilt seccomp helper (Linux x64 and arm64), which blocks Unix sockets in the sandbox and reports refused writes.
for (const arch of ['x64', 'arm64']) {
  const from = `node_modules/@anthropic-ai/sandbox-runtime/vendor/seccomp/${arch}/apply-seccomp`;
  if (!existsSync(from)) continue;
  mkdirSync(`dist/vendor/seccomp/${arch}`, { recursive: true });
  copyFileSync(from, `dist/vendor/seccomp/${arch}/apply-seccomp`);
  chmodSync(`dist/vendor/seccomp/${arch}/apply-seccomp`, 0o755);
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log(`watching ${contexts.length} bundles`);
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  if (production) checkWebviewBudget();
}

/** The page's main module stays in its budget (the grammars load on demand and do not count). */
function checkWebviewBudget() {
  const size = statSync('dist/webview/webview.js').size;
  if (size > WEBVIEW_MAIN_BUDGET_BYTES) {
    throw new Error(`esbuild.mjs: dist/webview/webview.js is ${size} bytes, over its budget of ${WEBVIEW_MAIN_BUDGET_BYTES} (scripts/webviewBuild.mjs)`);
  }
}
