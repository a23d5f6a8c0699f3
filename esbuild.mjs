// Bundles every entry point. `node esbuild.mjs [--watch] [--production]`.
import * as esbuild from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { brotliCompressSync, constants as zlib } from 'node:zlib';

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
  // Entry the MCP conformance suite runs as its client.
  { ...node, entryPoints: ['test/conformance/client.ts'], outfile: 'dist/conformance-client.js' },
  // Mocha suite that runs inside a real extension host.
  { ...node, entryPoints: ['test/e2e/suite/index.ts'], outfile: 'out/test/e2e/index.js', external: ['vscode', 'mocha'] },
  // The webview bundle (browser).
  {
    bundle: true, platform: 'browser', format: 'iife', target: 'es2022', sourcemap: !production, minify: production,
    logLevel: 'warning', entryPoints: ['webview/main.ts'], outfile: 'dist/webview/webview.js',
  },
].filter((b) => existsSync(b.entryPoints[0]));

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log(`watching ${contexts.length} bundles`);
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
