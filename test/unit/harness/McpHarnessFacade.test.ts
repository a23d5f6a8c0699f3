import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod/v4';
import { describe, expect, it } from 'vitest';
import type { HookDefinition } from '../../../src/core/config/hookTypes';
import { harnessRig as rig, memoryHarness } from '../../support/memoryHarness';

describe('McpHarness, what a host reaches through the facade', () => {
  it('signs a stdio server in and out by starting it again', async () => {
    const { harness, started } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    await harness.signIn('alpha');
    expect(started).toHaveLength(2);
    expect(harness.servers()[0]!.state).toBe('running');
    await harness.signOut('alpha');
    expect(started).toHaveLength(3);
    expect(harness.servers()[0]!.state).toBe('running');
  });

  it('logs, as the harness, a tool a server lists that it cannot expose', async () => {
    const { harness, last, logs } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    const server = last('alpha').server.server;
    server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'twice', inputSchema: { type: 'object' } }, { name: 'twice', inputSchema: { type: 'object' } }] }));
    await server.sendToolListChanged();
    await expect.poll(() => logs.find((l) => l.message.includes('skipped a second tool'))).toMatchObject({ server: 'harness', level: 'warn', message: 'server "alpha": skipped a second tool named "twice"' });
    expect(harness.tools().map((t) => t.name)).toEqual(['mcp__alpha__twice']);
  });

  it('masks a secret in what a server logs', async () => {
    const { harness, last, logs } = rig({ alpha: { command: 'alpha', env: { TOKEN: '${env:ALPHA_TOKEN}' } } }, { alpha: { logging: true } }, { env: { ALPHA_TOKEN: 'tok-123456789' } });
    await harness.start();
    await last('alpha').server.server.sendLoggingMessage({ level: 'error', data: 'the token tok-123456789 expired' });
    await expect.poll(() => logs.some((l) => l.server === 'alpha' && l.message.includes('expired'))).toBe(true);
    const entry = logs.find((l) => l.server === 'alpha' && l.message.includes('expired'))!;
    expect(entry.message).not.toContain('tok-123456789');
    expect(entry.message).toContain('the token');
  });

  it('tells why a task of a server that is no longer configured cannot be followed', async () => {
    const { harness } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    const ended = await harness.waitForTask('gone', 't-1');
    expect(ended).toMatchObject({ task: { server: 'gone', taskId: 't-1', status: 'failed' }, error: expect.stringContaining('server "gone" is no longer configured') });
    // A configured server is asked; this one knows no tasks.
    expect((await harness.waitForTask('alpha', 't-2')).error).toMatch(/^following task t-2: .*Method not found/);
  });

  it('asks a running server for a task, and passes on the refusal of a server that keeps no tasks', async () => {
    const { harness } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    await expect(harness.getTask('alpha', 'unknown-task')).rejects.toThrow('Method not found');
  });

  it('gives hooks the environment a stdio server would get', async () => {
    const hook: HookDefinition = { id: 'h', event: 'UserPromptSubmit', matcher: '', command: 'cat >/dev/null; echo "probe: $HARNESS_HOOK_PROBE"', timeoutSec: 10, onError: 'block', origin: { source: 'user', file: 'settings.json', jsonPath: 'hooks' } };
    const { harness } = rig({}, {}, { hooks: { definitions: [hook] }, inheritEnv: true, env: { HARNESS_HOOK_PROBE: 'from the host', PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    await harness.start();
    const verdict = await harness.chatHooks.userPromptSubmit({ conversationId: 'c', prompt: 'hi' });
    expect(verdict.notes.map((n) => n.text)).toEqual(['probe: from the host']);
  });

  it('leaves asks, log levels and roots alone where the host gave none, and takes one workspace folder as the roots', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-one-root-'));
    try {
      const { harness, last } = rig({ alpha: { command: 'alpha' } }, { alpha: { logging: true } }, { workspaceFolder: folder });
      await harness.start();
      expect(() => harness.resetAskApprovals()).not.toThrow();
      expect(() => harness.applyLogLevel('alpha')).not.toThrow();
      expect(last('alpha').levels).toEqual([]);
      expect((await last('alpha').server.server.listRoots()).roots).toEqual([{ uri: `file://${folder}`, name: path.basename(folder) }]);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('logs the first line of a long failure cut at 300 characters', async () => {
    const long = 'x'.repeat(400);
    const { harness, logs } = rig(
      { alpha: { command: 'alpha' } },
      {
        alpha: {
          tools: {
            fail: () => {
              throw new Error(long);
            },
          },
        },
      },
    );
    await harness.start();
    await harness.callTool('mcp__alpha__fail');
    const line = logs.find((l) => l.level === 'warn' && l.message.startsWith('call fail'))!.message;
    expect(line).toMatch(/: x{300}$/);
  });

  it('logs as the first line of a failure the first that is not blank', async () => {
    const { harness, logs } = rig(
      { alpha: { command: 'alpha' } },
      {
        alpha: {
          tools: {
            fail: () => {
              throw new Error('   \nthe real reason\nmore');
            },
          },
        },
      },
    );
    await harness.start();
    await harness.callTool('mcp__alpha__fail');
    const line = logs.find((l) => l.level === 'warn' && l.message.startsWith('call fail'))!.message;
    expect(line).toMatch(/^call fail \(\w{8}\) failed after \d+ ms: (Error: )?the real reason$/);
  });

  it('hands a caller the structured content of a result', async () => {
    const { harness, last } = rig({ alpha: { command: 'alpha' } }, { alpha: {} });
    await harness.start();
    last('alpha').server.registerTool('count', { description: 'Counts', inputSchema: z.object({}), outputSchema: z.object({ n: z.number() }) }, () => ({ content: [{ type: 'text', text: '{"n":3}' }], structuredContent: { n: 3 } }));
    await expect.poll(() => harness.tool('mcp__alpha__count')).toBeDefined();
    expect(await harness.callTool('mcp__alpha__count')).toStrictEqual({ isError: false, text: '{"n":3}', content: [{ type: 'text', text: '{"n":3}' }], structuredContent: { n: 3 } });
  });

  it('leaves a server that the host gate blocks blocked when a new policy allows it, and asks that gate only when starting', async () => {
    const asked: string[] = [];
    const checkStart = async (def: { name: string }) => {
      asked.push(def.name);
      return def.name === 'gated' ? 'not trusted' : undefined;
    };
    const policy = (command: string) => ({ serverPolicy: { ok: true, value: { source: 'policy.json', allow: [{ command }] } } as never });
    const { harness } = rig({ gated: { command: 'alpha' }, open: { command: 'alpha' } }, { alpha: {} }, { checkStart, ...policy('alpha') });
    await harness.start();
    expect(harness.servers().map((s) => [s.name, s.state])).toEqual([
      ['gated', 'blocked'],
      ['open', 'running'],
    ]);
    const before = asked.length;
    await harness.applyConfig(policy('alpha'));
    await harness.applyConfig({ serverPolicy: { ok: true, value: { source: 'policy.json', allow: [{ command: 'alpha' }, { command: 'other' }] } } as never });
    expect(asked.slice(before)).toEqual([]);
    expect(harness.servers()[0]).toMatchObject({ state: 'blocked', error: 'not trusted' });
  });

  it('loads the servers other agents configured only when asked, where the options and the host environment point', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-discover-'));
    try {
      const xdg = path.join(home, 'xdg');
      fs.mkdirSync(path.join(xdg, 'Claude'), { recursive: true });
      fs.writeFileSync(path.join(xdg, 'Claude', 'claude_desktop_config.json'), JSON.stringify({ mcpServers: { desk: { command: 'alpha' } } }));
      fs.mkdirSync(path.join(home, '.cursor'));
      fs.writeFileSync(path.join(home, '.cursor', 'mcp.json'), JSON.stringify({ mcpServers: { cur: { command: 'alpha', args: ['from-cursor'] } } }));
      const names = async (options: Parameters<typeof memoryHarness>[2]) => {
        const { harness } = rig({}, { alpha: {} }, { env: { XDG_CONFIG_HOME: xdg }, ...options });
        await harness.start();
        return harness.servers().map((s) => s.name);
      };
      expect(await names({})).toEqual([]);
      const found = await names({ discover: { home, vscodeUserFolder: false } });
      expect(found).toHaveLength(2);
      expect(found.some((n) => n.includes('desk'))).toBe(true);
      expect(found.some((n) => n.includes('cur'))).toBe(true);
      // `true` reads this machine's home, and the desktop apps' folder the host environment names.
      expect((await names({ discover: true })).some((n) => n.includes('desk'))).toBe(true);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
