import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { McpHarness, type HarnessOptions, type McpLogEntry } from '../../src/core';
import { waitForHarness } from '../support/events';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { fixtureEntry, referenceServers, tempDir, writeJson } from '../support/servers';

// What a server may do besides answering calls (ask for roots, log, change its lists, page
// badly), what the harness does around a start, and tools the harness implements itself.
describe('server requests, notifications and list changes', () => {
  const tag = processTag();
  const tmp = tempDir();
  const harnesses: McpHarness[] = [];
  let configCount = 0;

  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.dispose()));
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  });
  afterAll(() => tmp.cleanup());

  function harnessFor(servers: Record<string, Record<string, unknown>>, options: HarnessOptions = {}) {
    const file = writeJson(tmp.dir, `config-${++configCount}.json`, {
      mcpServers: Object.fromEntries(Object.entries(servers).map(([k, v]) => [k, { ...v, env: { ...tag.env, ...(v.env as object) } }])),
    });
    const h = new McpHarness({ configFiles: [file], shutdownGraceMs: 500, ...options });
    harnesses.push(h);
    return h;
  }

  it('answers roots/list with the workspace folders', async () => {
    const folder = path.join(tmp.dir, 'roots-ws');
    fs.mkdirSync(folder, { recursive: true });
    const h = harnessFor({ r: fixtureEntry(['--ask-roots']) }, { workspaceFolder: folder });
    await h.start();
    const roots = JSON.parse((await h.callTool('mcp__r__roots', {})).text);
    expect(roots).toEqual([{ uri: pathToFileURL(folder).href, name: 'roots-ws' }]);
  });

  it('gives server-filesystem the workspace folders as its roots instead of its command-line directory', async () => {
    const folder = path.join(tmp.dir, 'fs-root');
    const other = path.join(tmp.dir, 'fs-args');
    fs.mkdirSync(folder, { recursive: true });
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(folder, 'inside.txt'), 'from the root\n');
    const h = harnessFor({ fs: { command: process.execPath, args: [referenceServers.filesystem, other] } }, { workspaceFolder: folder });
    await h.start();
    // The server asks for roots after initialized; its allowed list follows once it has the answer.
    const allowed = async () => (await h.callTool('mcp__fs__list_allowed_directories', {})).text;
    for (let i = 0; i < 100 && !(await allowed()).includes(folder); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await allowed()).toContain(folder);
    expect(await allowed()).not.toContain(other);
    expect((await h.callTool('mcp__fs__read_text_file', { path: path.join(folder, 'inside.txt') })).text).toContain('from the root');
  });

  it('passes the server\'s log notifications to onDidLog with their level', async () => {
    const h = harnessFor({ talk: fixtureEntry(['--extras']) });
    const logs: McpLogEntry[] = [];
    h.onDidLog((e) => e.source === 'server' && logs.push(e));
    await h.start();
    await h.callTool('mcp__talk__log', { level: 'warning', message: 'disk almost full' });
    await h.callTool('mcp__talk__log', { level: 'debug', message: 'detail' });
    expect(logs.map(({ server, level, source, message }) => ({ server, level, source, message }))).toEqual([
      { server: 'talk', level: 'warn', source: 'server', message: '[fixture] disk almost full' },
      { server: 'talk', level: 'debug', source: 'server', message: '[fixture] detail' },
    ]);
  });

  it('writes the log lines of a call while someone reads the log, and only then', async () => {
    const h = harnessFor({ fx: fixtureEntry() });
    await h.start();
    expect((await h.callTool('mcp__fx__echo', { text: 'unheard' })).text).toBe('unheard');
    const lines: string[] = [];
    const listener = h.onDidLog((e) => e.source === 'harness' && lines.push(`${e.level} ${e.message}`));
    const outcome = await h.call({ name: 'mcp__fx__echo', arguments: { text: 'heard' } });
    const failed = await h.call({ name: 'mcp__fx__fail', arguments: {} });
    const id = (o: { callId: string }) => o.callId.slice(0, 8);
    expect(lines).toEqual([
      `info call echo (${id(outcome)})`,
      expect.stringMatching(new RegExp(`^info call echo \\(${id(outcome)}\\) done after \\d+ ms$`)),
      `info call fail (${id(failed)})`,
      expect.stringMatching(new RegExp(`^warn call fail \\(${id(failed)}\\) failed after \\d+ ms: \\S`)),
    ]);
    listener.dispose();
    await h.callTool('mcp__fx__echo', { text: 'unheard again' });
    expect(lines).toHaveLength(4);
  });

  it('follows resources/list_changed and prompts/list_changed', async () => {
    const h = harnessFor({ res: fixtureEntry(['--resources']) });
    await h.start();
    const snapshot = () => h.snapshots()[0];
    expect(snapshot().resources.map((r) => r.name)).toEqual(['one']);
    expect(snapshot().prompts.map((p) => p.name)).toEqual(['greet']);
    await h.callTool('mcp__res__add_resource', { name: 'two' });
    await waitForHarness(h, () => snapshot().resources.length === 2, 'showing the new resource');
    expect(snapshot().resources.map((r) => r.uri)).toEqual(['fixture://one', 'fixture://two']);
    await h.callTool('mcp__res__add_prompt', { name: 'bye' });
    await waitForHarness(h, () => snapshot().prompts.length === 2, 'showing the new prompt');
    expect(snapshot().prompts.map((p) => p.name)).toEqual(['greet', 'bye']);
  });

  it('keeps the previous tool list when a re-list fails, and says so', async () => {
    const h = harnessFor({ brittle: fixtureEntry(['--extras']) });
    const warnings: string[] = [];
    h.onDidLog((e) => e.level === 'warn' && warnings.push(e.message));
    await h.start();
    const before = h.tools().map((t) => t.name);
    const warned = new Promise<void>((resolve) => {
      const sub = h.onDidLog((e) => {
        if (!e.message.startsWith('re-listing tools failed')) return;
        sub.dispose();
        resolve();
      });
    });
    await h.callTool('mcp__brittle__break_tools_list', {});
    await warned;
    expect(warnings.find((w) => w.startsWith('re-listing tools failed'))).toContain('keeping the previous list');
    expect(h.tools().map((t) => t.name)).toEqual(before);
    expect(h.servers()[0].state).toBe('running');
    expect((await h.callTool('mcp__brittle__echo', { text: 'still listed' })).text).toBe('still listed');
  });

  it('stops paging when a server repeats its cursor', async () => {
    const h = harnessFor({ loop: fixtureEntry(['--repeat-cursor']) });
    const warnings: string[] = [];
    h.onDidLog((e) => e.level === 'warn' && warnings.push(e.message));
    await h.start();
    expect(h.servers()[0].state).toBe('running');
    const names = h.servers()[0].tools.map((t) => t.name);
    expect(names).toHaveLength(15);
    expect(names.at(-1)).toBe('second_page');
    expect(warnings).toContain('tools/list repeated cursor "again"; stopping after 2 pages');
  });

  it('stops a server that is still starting: it never comes up and leaves no process', async () => {
    const h = harnessFor({ slow: fixtureEntry(['--init-delay-ms=3000']) });
    const states: string[] = [];
    h.onDidChange(() => h.servers().forEach((s) => states.at(-1) !== s.state && states.push(s.state)));
    const starting = h.start();
    await waitForHarness(h, () => h.snapshots()[0]?.state.kind === 'starting' && h.snapshots()[0], 'starting');
    // Wait for the process to exist, so the stop has something to end.
    await waitForNoProcesses(() => (tag.alive().length > 0 ? [] : [0]));
    await h.stopServer('slow');
    expect(tag.alive()).toEqual([]);
    await starting;
    expect(h.servers()[0].state).toBe('stopped');
    expect(states.slice(states.indexOf('starting'))).toEqual(['starting', 'stopped']);
    const call = await h.callTool('mcp__slow__echo', { text: 'x' });
    expect(call).toMatchObject({ isError: true, errorKind: 'unavailable' });
    expect(call.text).toBe('server "slow" is not running (stopped): it was stopped or has not been started');
  });

  it('calls built-in tools through the harness: results, invalid arguments and a tool that throws', async () => {
    const h = harnessFor({});
    await h.start();
    const seen: Array<Record<string, unknown>> = [];
    const sum = h.registerBuiltin({
      name: 'sum',
      description: 'Adds numbers',
      inputSchema: { type: 'object', properties: { values: { type: 'array', items: { type: 'number' } } }, required: ['values'] },
      invoke: async (args) => {
        seen.push(args);
        const total = (args.values as number[]).reduce((a, b) => a + b, 0);
        return { isError: false, text: String(total), content: [{ type: 'text', text: String(total) }] };
      },
    });
    h.registerBuiltin({
      name: 'explode',
      description: 'Always throws',
      inputSchema: { type: 'object' },
      invoke: async () => {
        throw new Error('boom');
      },
    });
    expect(h.tools().map((t) => [t.name, t.server])).toEqual([['sum', undefined], ['explode', undefined]]);
    expect(await h.callTool('sum', { values: [1, 2, 39] })).toMatchObject({ isError: false, text: '42' });
    expect(seen).toEqual([{ values: [1, 2, 39] }]);
    const invalid = await h.callTool('sum', { values: 'many' });
    expect(invalid).toMatchObject({ isError: true, errorKind: 'invalid_arguments' });
    expect(seen).toHaveLength(1);
    expect(await h.callTool('explode', {})).toMatchObject({ isError: true, errorKind: 'tool_error', text: 'explode failed: boom' });
    sum.dispose();
    expect((await h.callTool('sum', { values: [1] })).errorKind).toBe('unknown_tool');
  });
});
