import * as fs from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createRunCommandTool, RUN_ENV, type RunCommandOptions } from '../../../src/core/tools/builtin/runCommand';
import type { ToolCallResult } from '../../../src/core/tools/types';
import { processTag, waitForNoProcesses } from '../../support/leaks';
import { tempWorkspace } from '../../support/workspace';

const tag = processTag();

/** run_command in a temp workspace with a `src` folder; the test fails if a tagged process outlives it. */
function runner(options: RunCommandOptions = {}) {
  const ws = tempWorkspace({ 'src/a.txt': 'a' });
  onTestFinished(async () => {
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });
  const tool = createRunCommandTool(ws.roots, { env: { ...process.env, ...tag.env }, ...options });
  return { ws, tool, run: (args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallResult> => tool.invoke(args, { signal }) };
}

describe('run_command description', () => {
  it('states the output cap and the default time limit it was given', () => {
    const plain = runner().tool.description;
    expect(plain).toContain('(capped at 64 KB: the start and the end are kept)');
    expect(plain).toContain('after timeout_ms (default 60 s) or when the call is cancelled');
    const tuned = runner({ maxOutputBytes: 100, defaultTimeoutMs: 2500 }).tool.description;
    expect(tuned).toContain('(capped at 100 B:');
    expect(tuned).toContain('(default 2.5 s)');
  });
});

describe('run_command arguments', () => {
  it('refuses an empty or missing command, a bad time limit, and a folder that is a file or missing, running nothing', async () => {
    const { ws, run } = runner();
    expect(await run({ command: '  \n ' })).toMatchObject({ isError: true, text: 'run_command: argument "command" must not be empty' });
    expect((await run({})).text).toBe('run_command: argument "command" must be a string');
    expect((await run({ command: 'touch ran', timeout_ms: 0 })).text).toBe('run_command: argument "timeout_ms" must be an integer of at least 1');
    expect((await run({ command: 'touch ran', cwd: 'src/a.txt' })).text).toBe('run_command: "src/a.txt" is not a directory');
    expect((await run({ command: 'touch ran', cwd: 'nope' })).text).toBe('run_command: "nope" does not exist');
    expect((await run({ command: 'touch ran', cwd: 3 })).text).toBe('run_command: argument "cwd" must be a string');
    expect(fs.existsSync(ws.at('ran'))).toBe(false);
    expect(fs.existsSync(ws.at('src/ran'))).toBe(false);
  });

  it('does not start a command whose call was cancelled already', async () => {
    const { ws, run } = runner();
    expect(await run({ command: 'touch ran' }, AbortSignal.abort())).toStrictEqual({
      isError: true,
      text: 'run_command: cancelled before it started',
      content: [{ type: 'text', text: 'run_command: cancelled before it started' }],
    });
    expect(fs.existsSync(ws.at('ran'))).toBe(false);
  });

  it('caps a huge time limit instead of letting the timer overflow', async () => {
    const { run } = runner();
    expect(await run({ command: 'echo ok', timeout_ms: 2 ** 32 })).toMatchObject({ isError: false, text: 'exit code 0\nok' });
  });
});

describe('run_command environment', () => {
  it('gives every run an id of its own in the environment', async () => {
    const { run } = runner();
    const ids = [];
    for (let i = 0; i < 2; i++) ids.push((await run({ command: `echo "$${RUN_ENV}"` })).text.split('\n')[1]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('runs with the environment it was given, or the harness\'s own by default', async () => {
    const given = runner({ env: { PATH: process.env.PATH, ONLY_HERE: 'yes', ...tag.env } });
    expect((await given.run({ command: 'echo "$ONLY_HERE-$HOME"' })).text).toBe('exit code 0\nyes-');
    const plain = createRunCommandTool(given.ws.roots);
    expect((await plain.invoke({ command: 'echo "$PATH"' }, {})).text).toBe(`exit code 0\n${process.env.PATH}`);
  });
});

describe('run_command results', () => {
  it('reports the exit code or the signal that ended the command', async () => {
    const { run } = runner();
    const ok = await run({ command: 'true' });
    expect(ok).toMatchObject({ isError: false, text: 'exit code 0\n(no output)', structuredContent: { exitCode: 0, signal: null } });
    expect((await run({ command: 'exit 3' })).structuredContent).toStrictEqual({ exitCode: 3, signal: null });
    const killed = await run({ command: 'kill -TERM $$' });
    expect(killed).toMatchObject({ isError: true, text: 'killed by SIGTERM\n(no output)', structuredContent: { exitCode: null, signal: 'SIGTERM' } });
  });

  it('gives a command no input, so one that reads it ends at once', async () => {
    const { run } = runner({ defaultTimeoutMs: 5000 });
    expect(await run({ command: 'cat' })).toMatchObject({ isError: false, text: 'exit code 0\n(no output)' });
  });

  it('drops the blank lines at the end of the output', async () => {
    const { run } = runner();
    expect((await run({ command: 'printf "a\\n\\nb\\n\\n\\n"' })).text).toBe('exit code 0\na\n\nb');
  });

  it('keeps the first and the last half of a capped output and counts what it left out', async () => {
    const even = runner({ maxOutputBytes: 10 });
    expect((await even.run({ command: 'printf abcdefghijklmnopqrstuvwxyz' })).text).toBe('exit code 0\nabcde\n…[16 bytes of output omitted]…\nvwxyz');
    expect((await even.run({ command: 'printf 0123456789' })).text).toBe('exit code 0\n0123456789');
    expect((await even.run({ command: 'printf 0123456' })).text).toBe('exit code 0\n0123456');
    expect((await even.run({ command: 'printf "%02010d" 7' })).text).toBe('exit code 0\n00000\n…[2,000 bytes of output omitted]…\n00007');
    const odd = runner({ maxOutputBytes: 11 });
    expect((await odd.run({ command: 'printf abcdefghijklmnopqrstuvwxyz' })).text).toBe('exit code 0\nabcdef\n…[15 bytes of output omitted]…\nvwxyz');
  });
});

describe('run_command time limit and cancel', () => {
  it('times out at its default limit, naming the folder it ran in', async () => {
    const { run } = runner({ defaultTimeoutMs: 200 });
    const result = await run({ command: 'sleep 20', cwd: 'src' });
    expect(result).toStrictEqual({
      isError: true,
      text: 'Command timed out after 200 ms and was killed with every process it started (in src).\n(no output)',
      content: [{ type: 'text', text: 'Command timed out after 200 ms and was killed with every process it started (in src).\n(no output)' }],
    });
  });

  it('names the folder when a call is cancelled', async () => {
    const { run } = runner();
    const controller = new AbortController();
    const running = run({ command: 'sleep 20', cwd: 'src' }, controller.signal);
    while (tag.alive().length === 0) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    expect((await running).text).toBe('Command cancelled; it and every process it started were killed (in src).\n(no output)');
  });

  it('kills a command that ignores SIGTERM, and still reports the timeout when the call is cancelled meanwhile', async () => {
    const { run } = runner();
    const controller = new AbortController();
    const running = run({ command: "trap '' TERM; sleep 20", timeout_ms: 100 }, controller.signal);
    while (tag.alive().length < 2) await new Promise((r) => setTimeout(r, 20));
    // Past the time limit, inside the grace the ignored SIGTERM gets before SIGKILL.
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    expect((await running).text).toBe('Command timed out after 100 ms and was killed with every process it started.\n(no output)');
  });

  it('ends every daemon that left its process group, and counts them', async () => {
    const { run } = runner();
    const daemon = (n: number) => `setsid sh -c 'echo $$ > d${n}.pid; exec sleep 4${n}' &`;
    const command = `${daemon(1)} ${daemon(2)} while [ ! -s d1.pid ] || [ ! -s d2.pid ]; do sleep 0.05; done; rm d1.pid d2.pid; echo started`;
    const result = await run({ command });
    expect(result.text).toBe('exit code 0\nstarted\n[run_command: ended 2 background processes that had left its process group]');
  });

  it.each([
    ['printf started', 'exit code 0\nstarted\n'],
    ['true', 'exit code 0\n(no output)\n'],
  ])('puts the note on a line of its own after output that does not end a line, or none (%s)', async (last, shown) => {
    const { run } = runner();
    const command = `setsid sh -c 'echo $$ > d.pid; exec sleep 43' & while [ ! -s d.pid ]; do sleep 0.05; done; rm d.pid; ${last}`;
    const result = await run({ command });
    expect(result.text).toBe(`${shown}[run_command: ended 1 background process that had left its process group]`);
  });
});
