import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandInstallRoot, findOnPath } from '../../../src/core/process/sandbox/sandboxPolicy';

// Real files in a temporary folder: what `findOnPath` answers depends on file modes and types.
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-sandbox-path-')));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function file(relative: string, mode: number): string {
  const target = path.join(root, relative);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, '#!/bin/sh\n');
  fs.chmodSync(target, mode);
  return target;
}

const first = path.join(root, 'first');
const second = path.join(root, 'second');
const tool = file('second/tool', 0o755);
file('first/plain', 0o644);
file('second/plain', 0o755);
fs.mkdirSync(path.join(first, 'tool'), { recursive: true });

describe.skipIf(process.platform === 'win32')('findOnPath', () => {
  it('finds a command in a later PATH folder, passing over a folder of the same name', () => {
    expect(findOnPath('tool', [first, second].join(path.delimiter))).toBe(tool);
  });

  it('passes over a file that is not executable', () => {
    expect(findOnPath('plain', [first, second].join(path.delimiter))).toBe(path.join(second, 'plain'));
  });

  it('finds a command past empty PATH entries', () => {
    expect(findOnPath('tool', ['', second, ''].join(path.delimiter))).toBe(tool);
  });

  it('answers undefined when no PATH folder holds the command', () => {
    expect(findOnPath('tool', first)).toBeUndefined();
    expect(findOnPath('missing', [first, second].join(path.delimiter))).toBeUndefined();
  });

  it('answers undefined when there is no PATH at all', () => {
    expect(findOnPath('tool', undefined)).toBeUndefined();
    expect(findOnPath('tool', '')).toBeUndefined();
  });

  it('takes a command with a slash as a path, not a name to look up', () => {
    expect(findOnPath(tool, first)).toBe(tool);
    expect(findOnPath(path.join(first, 'plain'), second)).toBeUndefined();
    expect(findOnPath(path.join(first, 'tool'), second)).toBeUndefined();
    expect(findOnPath(path.join(root, 'nowhere', 'tool'), second)).toBeUndefined();
  });
});

describe.skipIf(process.platform === 'win32')('commandInstallRoot', () => {
  it('follows a link to the bin folder the real file sits in', () => {
    const real = file('opt/node-v20/bin/node', 0o755);
    const link = path.join(root, 'shims', 'node');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(real, link);
    expect(commandInstallRoot(link)).toBe(path.join(root, 'opt', 'node-v20'));
  });
});
