import * as fs from 'node:fs';
import { isProcessAlive } from '../../src/core/process/processGroup';

/**
 * Whether `pid` runs: alive and not a zombie. Where nothing reaps orphans (a container without an
 * init), a killed grandchild stays a zombie, which `kill(pid, 0)` still finds.
 */
export function isRunning(pid: number): boolean {
  if (!isProcessAlive(pid)) return false;
  try {
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}
