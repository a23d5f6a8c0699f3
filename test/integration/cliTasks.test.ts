import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, startProcess, tempDir, writeJson } from '../support/servers';

// `call` on a tool that becomes a task (waited for, or `--detach`ed) and `task ID`, against our task
// fixture over Streamable HTTP: it outlives each CLI run, as a remote server would.
const cli = repoPath('dist/cli.js');
const tag = processTag();
const tmp = tempDir('cli-tasks-');
const ws = path.join(tmp.dir, 'ws');
const record = path.join(tmp.dir, 'record.jsonl');
// The CLI keeps detached tasks under the user's config folder: a folder of this test's own.
const env = { ...tag.env, XDG_CONFIG_HOME: path.join(tmp.dir, 'config') };
let stop: () => Promise<void>;

function run(args: string[], options: { onStderr?: (text: string, child: ReturnType<typeof spawn>) => void } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args, '--workspace', ws], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => {
      stderr += c;
      options.onStderr?.(stderr, child);
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const events = (taskId: string) =>
  fs.existsSync(record)
    ? fs.readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.taskId === taskId).map((e) => e.event)
    : [];

beforeAll(async () => {
  if (!fs.existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
  const server = await startProcess(process.execPath, [repoPath('test/fixtures/servers/tasks.mjs'), '--http=0', `--record=${record}`, '--poll-ms=50'], { env: tag.env, ready: /listening \d+/ });
  stop = server.stop;
  writeJson(ws, '.mcp.json', { mcpServers: { jobs: { type: 'http', url: `http://127.0.0.1:${/listening (\d+)/.exec(server.output())![1]}/mcp` } } });
});

afterAll(async () => {
  await stop?.();
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe('mcp-harness call (tasks), task', () => {
  it('waits for a call that became a task and prints its result', async () => {
    const done = await run(['call', 'mcp__jobs__slow_compute', '{"seconds":0.5,"label":"waited"}']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe('computed waited in 0.5 s\n');
    expect(done.stderr).toMatch(/^task \S+ on jobs$/m);
  });

  it('--detach prints the task id at once; task ID shows it, then waits for it and prints its result', async () => {
    const detached = await run(['call', 'mcp__jobs__slow_compute', '{"seconds":5,"label":"later"}', '--detach']);
    expect(detached.code, detached.stderr).toBe(0);
    const taskId = detached.stdout.trim();
    expect(taskId).toMatch(/^[\w-]+$/);
    expect(events(taskId)).toEqual(['created']);
    expect(detached.stderr).toContain(`"mcp-harness task ${taskId}" shows it or waits for it`);

    const shown = await run(['task', taskId, '--no-wait']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`task ${taskId} on jobs (Slow compute)`);
    expect(shown.stdout).toMatch(/^status: working/m);

    const waited = await run(['task', taskId]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toBe('computed later in 5 s\n');
    expect(events(taskId)).toEqual(['created', 'completed']);
    // Finished: it is no longer kept, and the server still shows its result.
    const again = await run(['task', taskId, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ taskId, server: 'jobs', status: 'completed', isError: false, text: 'computed later in 5 s' });
  });

  it('Ctrl-C on a waiting call cancels its task on the server', async () => {
    let sent = false;
    const interrupted = await run(['call', 'mcp__jobs__slow_compute', '{"seconds":30}'], {
      onStderr: (text, child) => {
        if (sent || !/^task \S+ on jobs$/m.test(text)) return;
        sent = true;
        child.kill('SIGINT');
      },
    });
    expect(interrupted.code).toBe(130);
    const taskId = /^task (\S+) on jobs$/m.exec(interrupted.stderr)![1];
    expect(events(taskId)).toEqual(['created', 'cancelled']);
  });

  it('exits 1 for a task that failed, 2 for a task nobody knows', async () => {
    const detached = await run(['call', 'mcp__jobs__protocol_error_job', '{}', '--detach']);
    const failed = await run(['task', detached.stdout.trim()]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('failed: the job could not run');
    const unknown = await run(['task', 'no-such-task']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no server knows task no-such-task');
  });

  it('refuses --detach with another command', async () => {
    const refused = await run(['tools', '--detach']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--detach goes with call only');
  });
});
