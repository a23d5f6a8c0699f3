import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findProcessesWithEnv } from '../../../src/core/process/processGroup';

/** A /proc of two live processes: 50 whose environment holds `TAG=x` (and an empty `EMPTY=`), 51 with `OTHER=y`. */
function fakeProc(): string {
  const proc = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-proc-'));
  onTestFinished(() => fs.rmSync(proc, { recursive: true, force: true }));
  const environs: Record<number, string[]> = { 50: ['TAG=x', 'EMPTY='], 51: ['OTHER=y'] };
  for (const [pid, environ] of Object.entries(environs)) {
    fs.mkdirSync(path.join(proc, pid));
    // As Linux writes it: every entry ends in a NUL, so splitting on NUL leaves an empty last part.
    fs.writeFileSync(path.join(proc, pid, 'environ'), environ.join('\0') + '\0');
    fs.writeFileSync(path.join(proc, pid, 'stat'), `${pid} (sh) S 1 ${pid} ${pid} 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7${pid} 0`);
  }
  return proc;
}

describe('findProcessesWithEnv, asked for something that is not NAME=value', () => {
  it('finds no process for an empty entry, though every environment splits into an empty last part', () => {
    const proc = fakeProc();
    expect(findProcessesWithEnv('TAG=x', proc)).toEqual([{ pid: 50, startTime: '750' }]);
    expect(findProcessesWithEnv('', proc)).toEqual([]);
  });

  it('finds none for an entry without a name, a value or an equals sign, or with a NUL in it', () => {
    const proc = fakeProc();
    for (const entry of ['EMPTY=', '=x', 'TAG', 'TAG=x\0OTHER=y', '\0']) expect(findProcessesWithEnv(entry, proc), JSON.stringify(entry)).toEqual([]);
    expect(findProcessesWithEnv('OTHER=y', proc)).toEqual([{ pid: 51, startTime: '751' }]);
  });
});
