import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endProcesses, findDescendants, isSameProcessAlive } from '../../../src/core/process/processGroup';

/** A fake /proc with the given processes: [pid, ppid, state, command name]. */
function fakeProc(processes: Array<[number, number, string, string]>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-proc-'));
  for (const [pid, ppid, state, comm] of processes) {
    fs.mkdirSync(path.join(dir, String(pid)));
    // Fields 3.. after the name: state ppid pgrp session tty tpgid flags ... starttime is field 22.
    const rest = [state, ppid, pid, pid, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 20, 0, 1, 0, 1000 + pid, 0];
    fs.writeFileSync(path.join(dir, String(pid), 'stat'), `${pid} (${comm}) ${rest.join(' ')}`);
  }
  fs.mkdirSync(path.join(dir, 'self'));
  return dir;
}

describe('findDescendants', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('follows parent links through any depth, skipping zombies and unrelated processes', () => {
    const proc = fakeProc([
      [10, 1, 'S', 'server'],
      [11, 10, 'S', 'child (with) parens'],
      [12, 11, 'S', 'grandchild'],
      [13, 10, 'Z', 'zombie'],
      [20, 1, 'S', 'unrelated'],
      [21, 20, 'S', 'unrelated child'],
    ]);
    dirs.push(proc);
    expect(findDescendants(10, proc)).toEqual([
      { pid: 11, startTime: '1011' },
      { pid: 12, startTime: '1012' },
    ]);
    expect(findDescendants(99, proc)).toEqual([]);
    expect(findDescendants(10, path.join(proc, 'missing'))).toEqual([]);
  });

  it('tells a process from a later one that reused its pid', () => {
    const proc = fakeProc([[30, 1, 'S', 'x']]);
    dirs.push(proc);
    expect(isSameProcessAlive({ pid: 30, startTime: '1030' }, proc)).toBe(true);
    expect(isSameProcessAlive({ pid: 30, startTime: '999' }, proc)).toBe(false);
    expect(isSameProcessAlive({ pid: 31, startTime: '1031' }, proc)).toBe(false);
  });

  it('finds and ends a real detached grandchild on Linux', async () => {
    if (process.platform !== 'linux') return;
    const { spawn } = await import('node:child_process');
    const script = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'process.on("SIGTERM",()=>{});setInterval(()=>{},1000)'], { detached: true, stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const grandchild = await new Promise<number>((resolve) => parent.stdout!.once('data', (d) => resolve(Number(String(d).trim()))));
    const found = findDescendants(parent.pid!);
    expect(found.map((r) => r.pid)).toEqual([grandchild]);
    parent.kill('SIGKILL');
    await endProcesses(found, 300);
    expect(found.some((r) => isSameProcessAlive(r))).toBe(false);
  });
});
