import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The layering of src/core, as README's Architecture section shows it ("Which folder may import
// which"): each folder may import only the folders listed here (and itself). `facade` is the files
// at the top of src/core (McpHarness and its helpers), which may use every folder; `shared` is
// src/shared. An entry `folder/file` allows that one file only. Nothing in src/core may import
// anything else outside it (src/extension, src/cli, webview).
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  base: ['shared'],
  process: ['base'],
  config: ['base', 'process'],
  requests: ['base', 'mcp/McpClientHandlers', 'mcp/McpCallError', 'calls', 'agent', 'apps/appResource'],
  auth: ['base', 'config'],
  mcp: ['base', 'process', 'config', 'auth/types', 'requests/clientCapabilities', 'requests/redactAnswers', 'tasks'],
  tasks: ['base', 'mcp/McpCallError', 'mcp/McpClientHandlers'],
  tools: ['base', 'process'],
  permissions: ['base', 'tools'],
  calls: ['base', 'tools', 'permissions', 'mcp', 'tasks'],
  skills: ['base', 'tools', 'mcp'],
  hooks: ['base', 'process', 'config', 'tools', 'permissions', 'calls'],
  agent: ['base', 'tools', 'permissions', 'calls'],
  chat: ['base', 'shared', 'tools', 'permissions', 'calls', 'agent', 'requests', 'apps', 'tasks'],
  apps: ['base'],
  serve: ['base', 'tools', 'permissions', 'calls', 'apps', 'facade'],
};

const SRC = path.resolve(__dirname, '../../src');
const CORE = path.join(SRC, 'core');

interface CoreImport {
  /** The importing file, relative to src/core. */
  readonly file: string;
  readonly specifier: string;
  /** The imported file without its extension, relative to src/core (`../shared/x` when outside). */
  readonly target: string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

function resolveTarget(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  const isDir = fs.existsSync(base) && fs.statSync(base).isDirectory();
  return path.relative(CORE, isDir ? path.join(base, 'index') : base.replace(/\.(js|ts)$/, ''));
}

/** Every relative import, re-export, `import()` and `require()` of every file in src/core. */
function coreImports(): CoreImport[] {
  return sourceFiles(CORE).flatMap((full) => {
    const info = ts.preProcessFile(fs.readFileSync(full, 'utf8'), true, true);
    return info.importedFiles
      .filter((f) => f.fileName.startsWith('.'))
      .map((f) => ({ file: path.relative(CORE, full), specifier: f.fileName, target: resolveTarget(full, f.fileName) }));
  });
}

/** The folder a path relative to src/core belongs to: its first segment, `facade` at the top, `shared` for src/shared. */
function layerOf(relative: string): string {
  const parts = relative.split(path.sep);
  if (parts[0] === '..') return parts[1] === 'shared' ? 'shared' : `src/${parts[1]}`;
  return parts.length === 1 ? 'facade' : parts[0];
}

/** Why an import breaks the table, or undefined when it is allowed. */
export function violation(imp: CoreImport, table = MAY_IMPORT): string | undefined {
  const from = layerOf(imp.file);
  const to = layerOf(imp.target);
  if (from === to) return undefined;
  if (from === 'facade') return to === 'shared' || !to.startsWith('src/') ? undefined : `${imp.file} imports ${imp.specifier}: src/core never imports ${to}`;
  const allowed = table[from];
  if (!allowed) return `${imp.file}: folder ${from} is not in the layer table (add it, with what it may import)`;
  const fileKey = imp.target.split(path.sep).slice(0, 2).join('/');
  if (allowed.includes(to) || allowed.includes(fileKey)) return undefined;
  return `${imp.file} imports ${imp.specifier}: ${from} may import only ${allowed.join(', ') || 'nothing'}`;
}

describe('src/core layers', () => {
  const imports = coreImports();

  it('finds the imports it checks (static, type-only, re-exports and dynamic)', () => {
    expect(imports.length).toBeGreaterThan(300);
    const facade = imports.filter((i) => i.file === 'McpHarness.ts').map((i) => layerOf(i.target));
    expect(facade).toEqual(expect.arrayContaining(['mcp', 'tools', 'config', 'calls']));
    // Type-only imports and re-exports count too.
    expect(imports).toContainEqual(expect.objectContaining({ file: path.join('agent', 'types.ts'), target: path.join('tools', 'types') }));
    expect(imports).toContainEqual(expect.objectContaining({ file: path.join('config', 'index.ts'), target: path.join('config', 'loadMcpConfig') }));
  });

  it('keeps every folder to the folders it may import', () => {
    expect(imports.map((i) => violation(i)).filter((v) => v !== undefined)).toEqual([]);
  });

  it('covers every folder of src/core', () => {
    const folders = fs.readdirSync(CORE, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.filter((f) => !(f in MAY_IMPORT))).toEqual([]);
  });

  it('reports an import against the direction, naming the file and the rule', () => {
    const bad = { file: path.join('base', 'event.ts'), specifier: '../mcp/McpSession', target: path.join('mcp', 'McpSession') };
    expect(violation(bad)).toBe(`${bad.file} imports ../mcp/McpSession: base may import only shared`);
    const outside = { file: path.join('tools', 'x.ts'), specifier: '../../extension/y', target: path.join('..', 'extension', 'y') };
    expect(violation(outside)).toMatch(/tools may import only/);
    expect(violation({ file: 'McpHarness.ts', specifier: '../extension/y', target: path.join('..', 'extension', 'y') })).toMatch(/never imports src\/extension/);
    expect(violation({ file: path.join('mcp', 'a.ts'), specifier: '../auth/types', target: path.join('auth', 'types') }, { mcp: ['auth/types'] })).toBeUndefined();
    expect(violation({ file: path.join('mcp', 'a.ts'), specifier: '../auth/McpHttpAuth', target: path.join('auth', 'McpHttpAuth') }, { mcp: ['auth/types'] })).toMatch(/mcp may import only auth\/types/);
  });
});
