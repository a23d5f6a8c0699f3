import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, tempDir, writeJson } from '../support/servers';
import { auditLines, cli, harnessFor, requireBuiltCli } from './serveSupport';

// Hooks where the terminal and other agents call: `mcp-harness call`, `mcp-harness hooks` and
// `serve --gateway`, the built CLI as a child process, in front of a server that records its calls.

const counting = repoPath('test/fixtures/servers/counting.mjs');
const scripted = (mode: string, extra = '') => `node ${repoPath('test/fixtures/hooks/scripted.mjs')} --mode=${mode} ${extra}`.trim();
const tag = processTag();
const tmp = tempDir('hooks-cli-');
const home = path.join(tmp.dir, 'config-home');
const ws = path.join(tmp.dir, 'ws');
const countFile = path.join(ws, 'calls.log');
const calls = () => (fs.existsSync(countFile) ? fs.readFileSync(countFile, 'utf8').split('\n').filter(Boolean) : []);
const hooksFile = (hooks: Record<string, unknown>) => writeJson(ws, '.harness/hooks.json', { hooks });

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args, '--workspace', ws], { env: { ...process.env, XDG_CONFIG_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  requireBuiltCli();
  writeJson(ws, '.mcp.json', { mcpServers: { count: { command: process.execPath, args: [counting, `--count-file=${countFile}`], env: tag.env } } });
});
afterAll(async () => {
  expect(await waitForNoProcesses(tag.alive, 10_000)).toEqual([]);
  tmp.cleanup();
});

describe('hooks in the CLI', () => {
  it('call: a PreToolUse hook blocks the call (exit 1, the reason on stderr) and the server sees nothing', async () => {
    fs.rmSync(countFile, { force: true });
    hooksFile({ PreToolUse: [{ matcher: 'mcp__count__echo', hooks: [{ type: 'command', command: scripted('exit2', '"--reason=not from the terminal"') }] }] });
    const { code, stderr } = await run(['call', 'mcp__count__echo', '{"text":"hi"}']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/Not run: blocked by the PreToolUse hook ".*--mode=exit2.*": not from the terminal/);
    expect(calls()).toEqual([]);
  });

  it("call: a hook's ask is refused without a terminal to ask on; the user's own hooks file and --hooks files count too", async () => {
    fs.rmSync(countFile, { force: true });
    hooksFile({ PreToolUse: [{ hooks: [{ type: 'command', command: scripted('ask', '"--reason=look first"') }] }] });
    const asked = await run(['call', 'mcp__count__echo', '{"text":"hi"}']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toMatch(/asks for a person's confirmation \(look first\), and nobody can be asked here/);

    hooksFile({});
    writeJson(home, 'mcp-harness/hooks.json', { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: scripted('rewrite', `--set='{"text":"from the user file"}'`) }] }] } });
    const extra = writeJson(tmp.dir, 'extra-hooks.json', { hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: scripted('note', '"--reason=seen by --hooks"') }] }] } });
    const rewritten = await run(['call', 'mcp__count__echo', '{"text":"hi"}', '--hooks', extra]);
    expect(rewritten.code).toBe(0);
    expect(rewritten.stdout.trim()).toBe('from the user file');
    expect(rewritten.stderr).toMatch(/hook note \(.*--mode=note.*\): seen by --hooks/);
    expect(calls()).toEqual(['call echo {"text":"from the user file"}']);
    fs.rmSync(path.join(home, 'mcp-harness/hooks.json'));
  });

  it('hooks lists every hook with where it comes from, and the config errors', async () => {
    hooksFile({ PreToolUse: [{ matcher: 'mcp__count__.*', hooks: [{ type: 'command', command: 'guard.sh', timeout: 5 }] }], Stop: [] });
    const { code, stdout, stderr } = await run(['hooks']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^EVENT\s+MATCHER\s+COMMAND\s+FROM\s+STATE/m);
    expect(stdout).toMatch(/^PreToolUse\s+mcp__count__\.\*\s+guard\.sh\s+\.harness\/hooks\.json:\d+\s+active\s*$/m);
    expect(stderr).toMatch(/\.harness\/hooks\.json:\d+:\d+: hooks\.Stop: unknown hook event/);
    const json = JSON.parse((await run(['hooks', '--json'])).stdout);
    expect(json.hooks).toEqual([{ event: 'PreToolUse', matcher: 'mcp__count__.*', command: 'guard.sh', timeout: 5, onError: 'block', origin: expect.objectContaining({ source: 'workspace', file: path.join(ws, '.harness/hooks.json') }), state: 'active' }]);
  });
});

describe('hooks in serve --gateway', () => {
  it("puts the workspace's hooks in front of every client: a deny reaches the client as the tool's error, and is audited", async () => {
    fs.rmSync(countFile, { force: true });
    hooksFile({
      PreToolUse: [
        { matcher: 'mcp__count__echo', hooks: [{ type: 'command', command: scripted('deny-json', '"--reason=org policy: no echo"') }] },
        { matcher: 'mcp__count__add', hooks: [{ type: 'command', command: scripted('ask') }] },
      ],
    });
    const audit = path.join(tmp.dir, 'serve-audit.jsonl');
    const client = await harnessFor({ command: process.execPath, args: [cli, 'serve', '--gateway', '--workspace', ws, '--audit-log', audit], env: { ...tag.env, XDG_CONFIG_HOME: home } });
    try {
      const denied = await client.callTool('mcp__h__mcp__count__echo', { text: 'hi' });
      expect(denied).toMatchObject({ isError: true });
      expect(denied.text).toMatch(/Not run: blocked by the PreToolUse hook ".*": org policy: no echo/);
      const asked = await client.callTool('mcp__h__mcp__count__add', { a: 1, b: 2 });
      expect(asked.text).toMatch(/nobody can be asked here/);
      expect(calls()).toEqual([]);
    } finally {
      await client.dispose();
    }
    const hooks = auditLines(audit).filter((l) => l.event === 'hook');
    expect(hooks.map((l) => [l.hookEvent, l.tool, l.outcome])).toEqual([['PreToolUse', 'mcp__count__echo', 'deny'], ['PreToolUse', 'mcp__count__add', 'ask']]);
    expect(hooks[0]!.client).toMatchObject({ transport: 'stdio', name: 'mcp-harness' });
  });
});
