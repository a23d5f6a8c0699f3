import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/core/process/processGroup';

describe('process groups left at exit', () => {
  it('are killed when the host process exits without shutting them down', () => {
    // A child Node process starts a detached group through the transport's tracker, then exits at once.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-pg-'));
    const processGroup = path.join(dir, 'processGroup.js');
    buildSync({ entryPoints: [path.resolve(__dirname, '../../../src/core/process/processGroup.ts')], outfile: processGroup, bundle: true, platform: 'node', format: 'cjs', logLevel: 'silent' });
    const script = `
      const { spawn } = require('node:child_process');
      const { trackProcessGroup } = require(${JSON.stringify(processGroup)});
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      trackProcessGroup(child.pid);
      console.log(child.pid);
      process.exit(0);`;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    fs.rmSync(dir, { recursive: true, force: true });
    const pid = Number(out.trim());
    expect(pid).toBeGreaterThan(0);
    // SIGKILL is immediate; allow the kernel a moment to reap.
    const deadline = Date.now() + 3000;
    while (isProcessAlive(pid) && !isZombie(pid) && Date.now() < deadline) execFileSync('sleep', ['0.05']);
    expect(isProcessAlive(pid) && !isZombie(pid)).toBe(false);
  });
});

function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return true;
  }
}
