import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IModelProvider, ModelStreamEvent } from '../../../src/core/agent/types';
import type { HookDefinition } from '../../../src/core/config/hookTypes';
import { harnessRig as rig } from '../../support/memoryHarness';
import { ScriptedAsks } from '../../support/scriptedAsks';

const hook = (over: Partial<HookDefinition>): HookDefinition => ({ id: 'h', event: 'UserPromptSubmit', matcher: '', command: 'true', timeoutSec: 10, onError: 'block', origin: { source: 'user', file: 'settings.json', jsonPath: 'hooks' }, ...over });

class OneLine implements IModelProvider {
  readonly id = 'one';
  readonly label = 'One';
  async models() {
    return [];
  }
  async *stream(): AsyncIterable<ModelStreamEvent> {
    yield { type: 'text', delta: 'sampled' };
  }
}

describe('McpHarness, each part of the facade', () => {
  it('has no config errors, hooks or servers before it starts, and names itself to servers', async () => {
    const { harness, last } = rig({ alpha: { command: 'alpha' } }, { alpha: {} }, { hooks: {} });
    expect(harness.configErrors()).toEqual([]);
    await harness.start();
    expect(harness.hooks()).toEqual([]);
    expect(last('alpha').server.server.getClientVersion()?.name).toBe('mcp-harness');
    const server = harness.servers()[0]!;
    expect('error' in server).toBe(false);
  });

  it('hands a call its events and gives results only the fields they have', async () => {
    const { harness, logs } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    const states: string[] = [];
    const result = await harness.callTool('mcp__alpha__echo', { text: 'hi' }, { onEvent: (e) => states.push(e.state) });
    expect(result).toStrictEqual({ isError: false, text: 'hi', content: [{ type: 'text', text: 'hi' }] });
    expect(states).toContain('running');
    expect(states.at(-1)).toBe('done');
    expect(logs.every((l) => l.source === 'harness')).toBe(true);
  });

  it('masks a secret a failing tool quotes, in the result, its events and the log line of its first line', async () => {
    const { harness, logs } = rig(
      { alpha: { command: 'alpha', env: { TOKEN: '${env:ALPHA_TOKEN}' } } },
      {
        alpha: {
          tools: {
            fail: () => {
              throw new Error(`\n\n   first line with tok-123456789   \nsecond line`);
            },
          },
        },
      },
      { env: { ALPHA_TOKEN: 'tok-123456789' } },
    );
    await harness.start();
    const outputs: string[] = [];
    const outcome = await harness.call({ name: 'mcp__alpha__fail', arguments: {} }, { onEvent: (e) => e.state === 'error' && outputs.push(e.output ?? '') });
    expect(outcome.state).toBe('error');
    expect(outcome.text).not.toContain('tok-123456789');
    expect(outputs.length).toBeGreaterThan(0);
    expect(outputs.join('')).not.toContain('tok-123456789');
    const line = logs.find((l) => l.level === 'warn' && l.message.startsWith('call fail'))!.message;
    expect(line).toMatch(/^call fail \(\w{8}\) failed after \d+ ms: first line with \S+$/);
    expect(line).not.toContain('tok-123456789');
  });

  it('lists no skills where no server offers them, and refuses to load one', async () => {
    const { harness } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    expect(await harness.skills()).toEqual({ skills: [], problems: [] });
    await expect(harness.getSkill('alpha', 'x')).rejects.toThrow(/alpha offers no skills/);
  });

  it('answers a server sampling through its asks, and asks again after the session approvals are reset', async () => {
    const person = new ScriptedAsks();
    person.samplingAnswers.push(() => 'session', () => 'once');
    const { harness, last, logs } = rig({ alpha: { command: 'alpha' } }, { alpha: {} }, { asks: { prompter: () => person, samplingModel: () => ({ provider: new OneLine(), model: 'm' }) } });
    await harness.start();
    const sample = () => last('alpha').server.server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }], maxTokens: 5 });
    expect(await sample()).toMatchObject({ content: { type: 'text', text: 'sampled' } });
    await sample();
    expect(person.samplings).toHaveLength(1);
    harness.resetAskApprovals();
    await sample();
    expect(person.samplings).toHaveLength(2);
    const unattended = rig({ beta: { command: 'beta' } }, { beta: {} }, { asks: { prompter: () => undefined } });
    await unattended.harness.start();
    const form = { mode: 'form' as const, message: 'm', requestedSchema: { type: 'object' as const, properties: {} } };
    expect(await unattended.last('beta').server.server.elicitInput(form)).toEqual({ action: 'decline' });
    expect(unattended.logs.some((l) => l.server === 'beta' && l.level === 'info' && l.message.startsWith('declined an elicitation request'))).toBe(true);
    expect(logs).toBeDefined();
  });

  it('sends no log level when the host gives none, logs only a level it set, and logs a refused one', async () => {
    const { harness, last, logs } = rig(
      { alpha: { command: 'alpha' }, quiet: { command: 'quiet' }, broken: { command: 'broken' } },
      { alpha: { logging: true }, quiet: {}, broken: { logging: true, loggingFails: true } },
      { logLevel: (s) => (s === 'alpha' ? undefined : 'error') },
    );
    await harness.start();
    await expect.poll(() => logs.some((l) => l.server === 'broken' && l.message.startsWith('logging/setLevel failed: '))).toBe(true);
    expect(last('alpha').levels).toEqual([]);
    expect(logs.filter((l) => l.message.startsWith('asked the server')).map((l) => l.server)).toEqual([]);
    expect(logs.find((l) => l.server === 'broken' && l.message.startsWith('logging/setLevel failed'))?.level).toBe('warn');
  });

  it('renews subscriptions on a new session, and forgets those of a server that was removed', async () => {
    const entries = { docs: { command: 'docs' } };
    const { harness, last, started } = rig(entries, { docs: { content: true } });
    await harness.start();
    const holder = {};
    await harness.subscribeResource('docs', 'note://readme', holder);
    await harness.restartServer('docs');
    await expect.poll(() => last('docs').calls).toEqual(['subscribe note://readme']);
    const userServers = (e: object) => ({ userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: e } });
    await harness.applyConfig(userServers({}));
    await harness.applyConfig(userServers(entries));
    expect(started).toHaveLength(3);
    expect(last('docs').calls).toEqual([]);
    harness.dropSubscriptions(holder);
  });

  it('ends what a holder subscribed to when it is dropped', async () => {
    const { harness, last } = rig({ docs: { command: 'docs' } }, { docs: { content: true } });
    await harness.start();
    const holder = {};
    await harness.subscribeResource('docs', 'note://readme', holder);
    harness.dropSubscriptions(holder);
    await expect.poll(() => last('docs').calls).toEqual(['subscribe note://readme', 'unsubscribe note://readme']);
  });

  it('follows a policy given later, leaves a disabled server alone, and starts a newly allowed one only with autoStart', async () => {
    const { harness } = rig({ alpha: { command: 'alpha' }, off: { command: 'alpha', disabled: true } }, { alpha: {} });
    await harness.start();
    const refuseAll = { ok: true, value: { source: 'policy.json', allow: [{ command: 'nothing' }] } } as never;
    await harness.applyConfig({ serverPolicy: refuseAll });
    expect(harness.servers().map((s) => [s.name, s.state])).toEqual([
      ['alpha', 'blocked'],
      ['off', 'disabled'],
    ]);
    expect(harness.servers()[0]!.error).toEqual(expect.any(String));
    const restarts = harness.servers()[0]!.restartCount;
    await harness.applyConfig({ serverPolicy: { ok: true, value: { source: 'policy.json', allow: [{ command: 'none' }] } } as never });
    expect(harness.servers()[0]).toMatchObject({ state: 'blocked', restartCount: restarts });

    const manual = rig({ alpha: { command: 'alpha' } }, { alpha: {} }, { autoStart: false, serverPolicy: refuseAll });
    await manual.harness.start();
    await manual.harness.startServer('alpha');
    expect(manual.harness.servers()[0]!.state).toBe('blocked');
    await manual.harness.applyConfig({ serverPolicy: { ok: true, value: { source: 'policy.json', allow: [{ command: 'alpha' }] } } as never });
    expect(manual.harness.servers()[0]!.state).toBe('blocked');
  });

  it('tells servers of roots only when the folders changed, and applies without waiting when told', async () => {
    const { harness, last } = rig({ alpha: { command: 'alpha' } }, { alpha: {}, beta: {} });
    await harness.start();
    let told = 0;
    last('alpha').server.server.setNotificationHandler('notifications/roots/list_changed', () => void told++);
    await harness.applyConfig({ toolTimeoutMs: 1000 });
    const result = await harness.applyConfig({ userServers: { label: 'settings.json', jsonPath: 'mcpHarness.servers', entries: { alpha: { command: 'alpha' }, beta: { command: 'beta' } } } }, { wait: false });
    expect(result.added).toEqual(['beta']);
    expect(harness.servers()[1]!.state).not.toBe('running');
    await harness.whenSettled();
    expect(harness.servers()[1]!.state).toBe('running');
    expect(told).toBe(0);
  });

  it('passes the host environment to servers only with inheritEnv, and looks for folders only in what the definition sets', async () => {
    const plain = rig({ alpha: { command: 'alpha' } }, { alpha: {} }, { env: { HOST_ONLY: 'x', PATH: '/bin' } });
    await plain.harness.start();
    expect(plain.launches[0]!.env.HOST_ONLY).toBeUndefined();
    const inheriting = rig({ alpha: { command: 'alpha' } }, { alpha: {} }, { env: { HOST_ONLY: '/no/such/place/x.json', PATH: '/bin' }, inheritEnv: true });
    await inheriting.harness.start();
    expect(inheriting.launches[0]!.env.HOST_ONLY).toBe('/no/such/place/x.json');
    expect(inheriting.logs.filter((l) => l.message.includes('points into'))).toEqual([]);
  });

  it('runs an HTTP server, and shows a launch it could not resolve as an error', async () => {
    const { harness } = rig({ web: { url: 'http://web/mcp' }, bad: { command: 'alpha', env: { X: '${input:nothing}' } } }, { web: {}, alpha: {} });
    await harness.start();
    expect(harness.servers().map((s) => [s.name, s.state])).toEqual([
      ['web', 'running'],
      ['bad', 'error'],
    ]);
  });

  it('runs hooks in the first workspace folder, or where the host runs without one, and asks the host which may run', async () => {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-hookdir-')));
    try {
      const here = hook({ command: 'cat >/dev/null; pwd' });
      const inFolder = rig({}, {}, { workspaceFolders: [folder], hooks: { definitions: [here] } });
      await inFolder.harness.start();
      expect((await inFolder.harness.chatHooks.userPromptSubmit({ conversationId: 'c', prompt: 'p' })).notes.map((n) => n.text)).toEqual([folder]);
      const nowhere = rig({}, {}, { hooks: { definitions: [here] } });
      await nowhere.harness.start();
      expect((await nowhere.harness.chatHooks.userPromptSubmit({ conversationId: 'c', prompt: 'p' })).notes.map((n) => n.text)).toEqual([process.cwd()]);
      const session = hook({ event: 'SessionStart', command: 'cat >/dev/null; echo started' });
      const blocked = rig({}, {}, { hooks: { definitions: [session], permit: () => 'not approved' } });
      await blocked.harness.start();
      expect(blocked.harness.hooks()).toEqual([{ hook: session, blocked: 'not approved' }]);
      const allowed = rig({}, {}, { hooks: { definitions: [session] } });
      await allowed.harness.start();
      expect((await allowed.harness.chatHooks.sessionStart({ conversationId: 'c', source: 'startup' })).notes.map((n) => n.text)).toEqual(['started']);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('tells of a change when a built-in tool comes or goes, and disposes once', async () => {
    const { harness } = rig({}, {});
    await harness.start();
    let changes = 0;
    harness.onDidChange(() => changes++);
    harness.registerBuiltin({ name: 'clock', description: 'c', inputSchema: { type: 'object' }, invoke: async () => ({ isError: false, text: '', content: [] }) });
    expect(changes).toBe(1);
    expect(harness.whenSettled()).toBeInstanceOf(Promise);
    const first = harness.dispose();
    expect(first).toBeInstanceOf(Promise);
    expect(harness.dispose()).toBe(first);
    await first;
  });
});
