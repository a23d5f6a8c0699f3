import { UnauthorizedError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { IMcpConnectAuth, McpFinishAuth } from '../../../src/core/auth/types';
import { isAuthFailure } from '../../../src/core/auth/types';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import { createTestServer, LinkedTransportFactory, type LinkedFactoryOptions } from '../../support/inMemoryServers';
import { sessionOpener } from './McpSessionFixtures';

const { open, closeAll } = sessionOpener();
afterEach(closeAll);

function factory(options: Partial<LinkedFactoryOptions> = {}) {
  const shared = createTestServer();
  return { f: new LinkedTransportFactory({ server: () => shared.server, ...options }), cancelled: shared.cancelled };
}

const call = { timeoutMs: 5000, maxTotalTimeoutMs: 10_000 };

describe('McpSession over linked in-memory transports', () => {
  it('shakes hands with a 2025-era server that refuses the revision probe, on the same transport', async () => {
    const { f } = factory();
    const { opened, logs } = open(f);
    const session = await opened;
    expect(session.protocolVersion).toBe('2025-11-25');
    expect(session.serverInfo).toMatchObject({ name: 'in-memory', version: '1.0.0' });
    expect(session.instructions).toBe('In memory.');
    expect(session.lists.tools.map((t) => t.name)).toEqual(['echo', 'add_tool', 'wait']);
    expect(session.transportKind).toBe('http');
    expect(f.created).toHaveLength(1);
    expect(logs.some((l) => l.includes('did not take server/discover'))).toBe(true);
    expect(await session.callTool('echo', { text: 'hi' }, call)).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('greets a server that hangs up on the probe with initialize on a fresh transport', async () => {
    const { f } = factory({ kind: 'stdio', server: () => createTestServer().server, hangUpOnDiscover: true });
    const { opened, logs } = open(f);
    const session = await opened;
    expect(f.created).toHaveLength(2);
    expect(session.protocolVersion).toBe('2025-11-25');
    expect(logs).toContain('info harness hung up on server/discover');
  });

  it('greets an SSE-kind server with initialize alone (no probe)', async () => {
    const { f } = factory({ kind: 'sse' });
    const { opened, logs } = open(f);
    await opened;
    expect(logs.some((l) => l.includes('server/discover'))).toBe(false);
  });

  it('lists again when the server says its tools changed, and tells', async () => {
    const { f } = factory();
    const session = await open(f).opened;
    const changed = new Promise<string>((resolve) => session.onDidChangeLists(resolve));
    await session.callTool('add_tool', {}, call);
    expect(await changed).toBe('tools');
    expect(session.lists.tools.map((t) => t.name)).toContain('extra');
  });

  it('cancels a call: the caller gets "cancelled" and the server sees the cancellation', async () => {
    const { f, cancelled } = factory();
    const session = await open(f).opened;
    const controller = new AbortController();
    const pending = session.callTool('wait', {}, { ...call, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    await expect.poll(() => cancelled).toEqual(['wait']);
  });

  it('gives up opening when aborted, with the abort reason, and closes what it opened', async () => {
    const { f } = factory();
    const controller = new AbortController();
    controller.abort(new Error('stopped'));
    await expect(open(f, {}, controller.signal).opened).rejects.toThrow('stopped');
  });

  it('says why when the server ends the connection, and refuses calls after', async () => {
    const { f } = factory();
    const session = await open(f).opened;
    const closed = new Promise<string>((resolve) => session.onDidClose(resolve));
    await f.created[0].close();
    expect(await closed).toBe('the in-memory server closed the connection');
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed', message: 'the in-memory server closed the connection' });
  });

  it('answers a refusal mid-session through the auth it was given (step-up), then makes the call again', async () => {
    const { f } = factory({ failFirst: { method: 'tools/call', error: () => new UnauthorizedError('insufficient_scope') } });
    const auth = new StepUpAuth();
    const session = await open(f, { auth: async () => auth }).opened;
    expect(await session.callTool('echo', { text: 'again' }, call)).toMatchObject({ content: [{ text: 'again' }] });
    expect(auth.stepUps).toBe(1);
    expect(f.finished.map((c) => c.get('code'))).toEqual(['granted']);
  });

  it('ends the session when the sign-in is refused and cannot be renewed', async () => {
    const { f } = factory({ failFirst: { method: 'tools/call', error: () => new UnauthorizedError('gone') } });
    const auth = new StepUpAuth(false);
    const session = await open(f, { auth: async () => auth }).opened;
    const closed = new Promise<string>((resolve) => session.onDidClose(resolve));
    const failure = await session.callTool('echo', { text: 'x' }, call).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(McpCallError);
    expect(failure).toMatchObject({ kind: 'unavailable', message: 'sign-in required: the saved sign-in is no longer valid, sign in again' });
    expect(await closed).toBe('the sign-in is no longer valid');
    expect(auth.disposed).toBe(true);
  });

  it('answers roots and elicitation with the handlers it was given, and passes server logs and resource updates on', async () => {
    const { f } = factory();
    const asked: string[] = [];
    const { opened, logs } = open(f, {
      handlers: {
        roots: () => [{ uri: 'file:///w', name: 'w' }],
        elicit: async (server, params) => {
          asked.push(`${server}: ${params.message}`);
          return { action: 'accept', content: { ok: true } };
        },
      },
    });
    const session = await opened;
    const server = f.servers[0].server;
    expect(server.getClientCapabilities()).toEqual({
      roots: { listChanged: true },
      elicitation: { form: { applyDefaults: true } },
      // An elicitation a server sends as a task is run as a task of the host's own.
      tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } },
      extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} },
    });
    expect(await server.listRoots()).toEqual({ roots: [{ uri: 'file:///w', name: 'w' }] });
    const answer = await server.elicitInput({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    expect(answer).toEqual({ action: 'accept', content: { ok: true } });
    expect(asked).toEqual(['mem: Go?']);
    const updated = new Promise<string>((resolve) => session.onDidUpdateResource(resolve));
    await server.sendResourceUpdated({ uri: 'mem://a' });
    expect(await updated).toBe('mem://a');
    await server.sendLoggingMessage({ level: 'warning', logger: 'db', data: { slow: true } });
    await server.sendLoggingMessage({ level: 'info', data: 'plain' });
    await expect.poll(() => logs.filter((l) => /^\w+ server /.test(l))).toEqual(['warn server [db] {"slow":true}', 'info server plain']);
  });

  it('declares no answering capabilities without handlers: only the skills and tasks extensions, which need none', async () => {
    const { f } = factory();
    await open(f).opened;
    expect(f.servers[0].server.getClientCapabilities()).toEqual({ extensions: { 'io.modelcontextprotocol/skills': {}, 'io.modelcontextprotocol/tasks': {} } });
  });

  it('explains a handshake that never ends with the time it waited', async () => {
    const { f } = factory({ silent: true });
    await expect(open(f, { startupTimeoutMs: 200 }).opened).rejects.toThrow('no answer to initialize within 0.2 s');
  });
});

/** Signs in again once when asked (as an interactive sign-in does), or never. */
class StepUpAuth implements IMcpConnectAuth {
  readonly provider = undefined;
  readonly keepsForSession: boolean;
  stepUps = 0;
  disposed = false;
  constructor(private readonly _canStepUp = true) {
    this.keepsForSession = true;
  }
  fetch(): never {
    throw new Error('not used in memory');
  }
  run(connect: () => Promise<void>): Promise<void> {
    return connect();
  }
  async withStepUp<T>(attempt: () => Promise<T>, finish: McpFinishAuth): Promise<T> {
    try {
      return await attempt();
    } catch (err) {
      if (!this._canStepUp || !isAuthFailure(err)) throw err;
      this.stepUps++;
      await finish(new URLSearchParams({ code: 'granted' }));
      return attempt();
    }
  }
  dispose(): void {
    this.disposed = true;
  }
}
