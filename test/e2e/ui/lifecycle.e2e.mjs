// No server process outlives its window: a reload stops the old ones (and the remembered approval
// starts new ones), and closing the window stops them all.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import {
  openApprovedWorkspace, runCommand, waitForServersSettled, waitForWorkbench,
} from './lib.mjs';

export async function run(ctx) {
  const { page } = ctx;
  await openApprovedWorkspace(ctx);
  const first = serverPids(ctx.workspace);
  assert.equal(first.length, 3, `three servers run in ${ctx.workspace}: ${JSON.stringify(first)}`);

  await runCommand(page, 'Developer: Reload Window');
  await waitForWorkbench(page);
  await waitUntilGone(first, 'the servers of the reloaded window');
  // Approval is remembered for the workspace, so the new window starts them again by itself.
  await waitForServersSettled(page);
  const second = serverPids(ctx.workspace);
  assert.equal(second.length, 3);
  assert.deepEqual(second.filter((pid) => first.includes(pid)), [], 'all new processes');
  ctx.log(`reload: ${first.join(',')} stopped, ${second.join(',')} started`);
  await page.screenshot({ path: `${ctx.resultsDir}/ui-lifecycle-after-reload.png` });

  await page.goto('about:blank');
  await waitUntilGone(second, 'the servers of the closed window');
  assert.deepEqual(serverPids(ctx.workspace), []);
}

/** Pids of live MCP server processes whose working directory is `folder` (the default for workspace servers). */
function serverPids(folder) {
  const pids = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readlinkSync(`/proc/${name}/cwd`) !== folder) continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1');
      if (/fixture\.mjs|server-everything|server-memory/.test(cmdline) && !/\) Z /.test(readFileSync(`/proc/${name}/stat`, 'latin1'))) pids.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids.sort((a, b) => a - b);
}

async function waitUntilGone(pids, what, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const left = pids.filter((pid) => {
      try {
        return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
      } catch {
        return false;
      }
    });
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${what} are still running after ${timeout / 1000} s: ${left.join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
