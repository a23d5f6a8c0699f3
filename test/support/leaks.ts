import * as fs from 'node:fs';
import { randomUUID } from 'node:crypto';

/**
 * Marks every process a suite starts through its config with an environment variable, which
 * children and grandchildren inherit, so the suite can prove none of them outlived it.
 */
export function processTag(): { env: Record<string, string>; alive: () => number[] } {
  const tag = `MCP_HARNESS_TEST_TAG=${randomUUID()}`;
  return { env: { MCP_HARNESS_TEST_TAG: tag.split('=')[1] }, alive: () => processesWithEnv(tag) };
}

/** Pids of live processes whose environment contains `entry` (Linux /proc). */
export function processesWithEnv(entry: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${name}/environ`, 'latin1');
      if (!environ.split('\0').includes(entry)) continue;
      // A zombie already exited; it is waiting for its parent to reap it.
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'latin1');
      if (/\) Z /.test(stat)) continue;
      pids.push(Number(name));
    } catch {
      // Gone between readdir and read, or not ours to read.
    }
  }
  return pids;
}

/**
 * Polls until no tagged process is left (a killed process takes a moment to disappear). Returns
 * what is still alive then, each as "pid command line", so a failed assertion names the survivor.
 */
export async function waitForNoProcesses(alive: () => number[], timeoutMs = 5000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let left = alive();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = alive();
  }
  return left.map(describeProcess);
}

function describeProcess(pid: number): string {
  try {
    return `${pid} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim()}`;
  } catch {
    return `${pid} (gone)`;
  }
}
