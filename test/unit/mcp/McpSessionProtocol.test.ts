import { InMemoryTransport, SdkHttpError, SdkErrorCode, UnauthorizedError, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { McpServer, Server } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/v4';
import type { IMcpConnectAuth } from '../../../src/core/auth/types';
import { linkedTo, modernEndpoint, tapSends, TestTransportFactory } from '../../support/memoryTransports';
import { sessionOpener } from './McpSessionFixtures';

const { open, closeAll } = sessionOpener();
afterEach(closeAll);

const call = { timeoutMs: 5000, maxTotalTimeoutMs: 10_000 };

function echoServer(name = 'echo-server', capabilities = {}): McpServer {
  const server = new McpServer({ name, version: '2.0.0' }, { capabilities: { tools: { listChanged: true }, ...capabilities } });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return server;
}

/** A server whose tool listing and results are what the test says, even when they break the rules. */
function rawServer(tools: object[], result: (name: string) => object): Server {
  const server = new Server({ name: 'raw', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({ tools }) as never);
  server.setRequestHandler('tools/call', (request) => result(request.params.name) as never);
  return server;
}

describe('McpSession with a 2026-07-28 server', () => {
  it('speaks the new revision, calls through it, and relists when the listen stream says the tools changed', async () => {
    const tools = ['echo'];
    const endpoint = modernEndpoint(() => {
      const server = echoServer();
      for (const name of tools.slice(1)) server.registerTool(name, { description: name }, () => ({ content: [{ type: 'text', text: name }] }));
      return server;
    });
    const { opened, logs } = open(new TestTransportFactory({ make: () => endpoint.transport() }));
    const session = await opened;
    expect(session.protocolVersion).toBe('2026-07-28');
    expect(session.lists.tools.map((t) => t.name)).toEqual(['echo']);
    expect(await session.callTool('echo', { text: 'new' }, call)).toMatchObject({ content: [{ type: 'text', text: 'new' }] });
    expect(logs.some((l) => l.includes('2025-era'))).toBe(false);
    await expect.poll(() => endpoint.methods).toContain('subscriptions/listen');

    const changed = new Promise<string>((resolve) => session.onDidChangeLists(resolve));
    tools.push('later');
    endpoint.handler.notify.toolsChanged();
    expect(await changed).toBe('tools');
    expect(session.lists.tools.map((t) => t.name)).toEqual(['echo', 'later']);
  });

  it('opens no listen stream when the server announces no list changes', async () => {
    const endpoint = modernEndpoint(() => rawServer([{ name: 'x', inputSchema: { type: 'object' } }], () => ({ content: [] })));
    const session = await open(new TestTransportFactory({ make: () => endpoint.transport() })).opened;
    expect(session.protocolVersion).toBe('2026-07-28');
    await session.callTool('x', {}, call);
    expect(endpoint.methods).not.toContain('subscriptions/listen');
  });

  it('finds a remote server gone when a call cannot reach it: the liveness probe fails and the session closes', async () => {
    const endpoint = modernEndpoint(() => echoServer());
    const session = await open(new TestTransportFactory({ make: () => endpoint.transport() })).opened;
    const closed = new Promise<string>((resolve) => session.onDidClose(resolve));
    endpoint.setDown(true);
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed', message: expect.stringMatching(/^could not reach the server: fetch failed/) });
    expect(await closed).toMatch(/^the server stopped answering: /);
    expect(session.closed).toBe(true);
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed', message: expect.stringMatching(/^the server stopped answering/) });
  });
});

describe('McpSession with a 2025-era server', () => {
  it('keeps the session when a failed call finds the server still answering', async () => {
    let refuse = true;
    const factory = new TestTransportFactory({
      make: () => tapSends(linkedTo(echoServer()), (m) => (refuse && 'method' in m && m.method === 'tools/call' ? new Error('socket hang up') : undefined)),
    });
    const session = await open(factory).opened;
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed', message: 'could not reach the server: socket hang up' });
    refuse = false;
    await expect.poll(async () => (await session.callTool('echo', { text: 'ok' }, call)).content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(session.closed).toBe(false);
  });

  it('does not probe a stdio server (its pipe closing says it is gone), and names its process', async () => {
    const sent: string[] = [];
    const factory = new TestTransportFactory({
      kind: 'stdio',
      pid: 4242,
      make: () =>
        tapSends(linkedTo(echoServer()), (m) => {
          if ('method' in m) sent.push(m.method);
          return 'method' in m && m.method === 'tools/call' ? new Error('EPIPE') : undefined;
        }),
    });
    const session = await open(factory).opened;
    expect(session.pid).toBe(4242);
    expect(session.transportKind).toBe('stdio');
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed' });
    await new Promise((r) => setTimeout(r, 20));
    expect(sent).not.toContain('ping');
    expect(session.closed).toBe(false);
  });

  it('sends other requests through, and refuses them once closed with the reason', async () => {
    const server = echoServer('res', { resources: {} });
    server.registerResource('note', 'mem://note', { mimeType: 'text/plain' }, () => ({ contents: [{ uri: 'mem://note', text: 'hello' }] }));
    const factory = new TestTransportFactory({ make: () => linkedTo(server), endReason: 'the process exited with code 3' });
    const session = await open(factory).opened;
    expect(session.lists.resources.map((r) => r.uri)).toEqual(['mem://note']);
    expect(await session.request({ method: 'resources/read', params: { uri: 'mem://note' } }, call)).toMatchObject({ contents: [{ text: 'hello' }] });
    await expect(session.request({ method: 'prompts/get', params: { name: 'none' } }, call)).rejects.toMatchObject({ kind: 'protocol', code: -32601 });
    const closed = new Promise<string>((resolve) => session.onDidClose(resolve));
    await factory.created[0].close();
    expect(await closed).toBe('the process exited with code 3');
    await expect(session.request({ method: 'resources/read', params: { uri: 'mem://note' } }, call)).rejects.toMatchObject({
      kind: 'connection_closed',
      message: 'the process exited with code 3',
    });
  });

  it('checks structured output against the tool output schema, as the SDK client would', async () => {
    const tools = [
      { name: 'typed', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
      { name: 'plain', inputSchema: { type: 'object' } },
    ];
    const answers: Record<string, object> = {};
    const factory = new TestTransportFactory({ make: () => linkedTo(rawServer(tools, (name) => answers[name])) });
    const session = await open(factory).opened;
    answers.typed = { content: [], structuredContent: { n: 1 } };
    expect(await session.callTool('typed', {}, call)).toMatchObject({ structuredContent: { n: 1 } });
    answers.typed = { content: [{ type: 'text', text: 'no structure' }] };
    await expect(session.callTool('typed', {}, call)).rejects.toMatchObject({
      kind: 'protocol',
      message: 'tool "typed" declares an output schema but returned no structured content',
    });
    answers.typed = { content: [], structuredContent: { n: 'one' } };
    await expect(session.callTool('typed', {}, call)).rejects.toMatchObject({
      kind: 'protocol',
      message: expect.stringMatching(/^tool "typed" returned structured content that does not match its output schema: .*n/),
    });
    answers.typed = { content: [{ type: 'text', text: 'failed' }], isError: true };
    expect(await session.callTool('typed', {}, call)).toMatchObject({ isError: true });
    answers.plain = { content: [], structuredContent: { anything: true } };
    expect(await session.callTool('plain', {}, call)).toMatchObject({ structuredContent: { anything: true } });
  });

  it('tells a server that asked for roots that they changed, and only such a server, only while open', async () => {
    const heard: string[] = [];
    const make = () => {
      const server = echoServer();
      server.server.setNotificationHandler('notifications/roots/list_changed', () => void heard.push('roots changed'));
      return linkedTo(server);
    };
    const withRoots = await open(new TestTransportFactory({ make }), { handlers: { roots: () => [] } }).opened;
    withRoots.notifyRootsChanged();
    await expect.poll(() => heard).toEqual(['roots changed']);
    const without = await open(new TestTransportFactory({ make })).opened;
    without.notifyRootsChanged();
    await withRoots.close();
    withRoots.notifyRootsChanged();
    await new Promise((r) => setTimeout(r, 20));
    expect(heard).toEqual(['roots changed']);
  });

  it('relists once for a burst of change notifications, and keeps the last list when relisting fails', async () => {
    const server = echoServer();
    let lists = 0;
    let failLists = false;
    const factory = new TestTransportFactory({
      make: () =>
        tapSends(linkedTo(server), (m) => {
          if (!('method' in m) || m.method !== 'tools/list') return;
          lists++;
          return failLists ? new Error('stream broke') : undefined;
        }),
    });
    const { opened, logs } = open(factory);
    const session = await opened;
    expect(lists).toBe(1);
    const changes: string[] = [];
    session.onDidChangeLists((kind) => changes.push(kind));
    server.registerTool('second', { description: 'second' }, () => ({ content: [] }));
    server.registerTool('third', { description: 'third' }, () => ({ content: [] }));
    await expect.poll(() => changes).toEqual(['tools']);
    expect(lists).toBe(2);
    expect(session.lists.tools.map((t) => t.name)).toEqual(['echo', 'second', 'third']);

    failLists = true;
    server.registerTool('fourth', { description: 'fourth' }, () => ({ content: [] }));
    await expect.poll(() => logs.filter((l) => l.includes('re-listing tools failed'))).toEqual(['warn harness re-listing tools failed, keeping the previous list: stream broke']);
    expect(session.lists.tools.map((t) => t.name)).toEqual(['echo', 'second', 'third']);
    expect(changes).toEqual(['tools']);
  });

  it('traces the JSON-RPC traffic while asked to, with form answers withheld and long lines cut', async () => {
    const server = echoServer();
    const factory = new TestTransportFactory({ make: () => linkedTo(server) });
    let tracing = true;
    const { opened, logs } = open(factory, {
      traceEnabled: () => tracing,
      handlers: { elicit: async () => ({ action: 'accept', content: { password: 'hunter2' } }) },
    });
    const session = await opened;
    expect(logs.find((l) => l.startsWith('trace rpc → '))).toMatch(/^trace rpc → \{"jsonrpc":"2.0","id":"[^"]+","method":"server\/discover"/);
    expect(logs.some((l) => l.startsWith('trace rpc ← ') && l.includes('"serverInfo":{"name":"echo-server"'))).toBe(true);
    await server.server.elicitInput({ mode: 'form', message: 'Password?', requestedSchema: { type: 'object', properties: { password: { type: 'string' } } } });
    const answer = logs.find((l) => l.includes('"action":"accept"'))!;
    expect(answer).toContain('"content":"[form values withheld]"');
    expect(answer).not.toContain('hunter2');
    await session.callTool('echo', { text: 'x'.repeat(5000) }, call);
    const long = logs.find((l) => l.startsWith('trace rpc → ') && l.includes('xxxx'))!;
    expect(long.length).toBe('trace rpc → '.length + 4001);
    expect(long.endsWith('…')).toBe(true);
    tracing = false;
    const before = logs.length;
    await session.callTool('echo', { text: 'quiet' }, call);
    expect(logs.slice(before).filter((l) => l.startsWith('trace'))).toEqual([]);
  });
});

describe('McpSession handshake', () => {
  it('switches to another kind of transport when the factory reads the failure so, and says so', async () => {
    const factory = new TestTransportFactory({
      make: (i) => (i === 0 ? tapSends(linkedTo(echoServer()), () => new SdkHttpError(SdkErrorCode.SendFailed, 'HTTP 404', { status: 404 })) : linkedTo(echoServer('sse-server'))),
      fallBack: (err) => (err instanceof SdkHttpError ? 'answered 404; trying SSE' : undefined),
      switchTo: 'sse',
    });
    const { opened, logs } = open(factory);
    const session = await opened;
    expect(factory.created).toHaveLength(2);
    expect(session.transportKind).toBe('sse');
    expect(session.serverInfo?.name).toBe('sse-server');
    expect(logs).toContain('info harness answered 404; trying SSE');
  });

  it('reports a failure no fallback explains, naming why the transport ended', async () => {
    const factory = new TestTransportFactory({
      make: () => {
        const transport = linkedTo(echoServer());
        return tapSends(transport, (m) => {
          if ('method' in m && m.method === 'initialize') void transport.close();
        });
      },
      probeTimeoutMs: () => undefined,
      endReason: 'the server process exited with code 1: Error: no config',
    });
    await expect(open(factory).opened).rejects.toThrow('the server process exited with code 1: Error: no config');
    expect(factory.created).toHaveLength(1);
  });

  it('hands the connect to the sign-in, and lets go of a sign-in it does not keep', async () => {
    const auth = new RecordingAuth(false);
    const factory = new TestTransportFactory({ make: () => linkedTo(echoServer()) });
    let given: IMcpConnectAuth | undefined;
    await open(factory, {
      auth: async () => auth,
      transports: (a) => {
        given = a;
        return factory;
      },
    }).opened;
    expect(given).toBe(auth);
    expect(auth.runs).toBe(1);
    expect(auth.disposed).toBe(true);
  });

  it('lets go of the sign-in when the connect fails, and reports the failure', async () => {
    const auth = new RecordingAuth(true, new Error('the authorization server did not answer'));
    const factory = new TestTransportFactory({ make: () => linkedTo(echoServer()) });
    await expect(open(factory, { auth: async () => auth }).opened).rejects.toThrow('the authorization server did not answer');
    expect(auth.disposed).toBe(true);
  });

  it('gives the same skills client each time', async () => {
    const session = await open(new TestTransportFactory({ make: () => linkedTo(echoServer()) })).opened;
    expect(session.skills).toBeInstanceOf(SkillsClient);
    expect(session.skills).toBe(session.skills);
  });
});

class RecordingAuth implements IMcpConnectAuth {
  readonly provider = undefined;
  runs = 0;
  disposed = false;
  constructor(
    readonly keepsForSession: boolean,
    private readonly _failure?: Error,
  ) {}
  fetch(): never {
    throw new Error('not used in memory');
  }
  async run(connect: () => Promise<void>): Promise<void> {
    this.runs++;
    if (this._failure) throw this._failure;
    await connect();
  }
  withStepUp<T>(attempt: () => Promise<T>): Promise<T> {
    return attempt();
  }
  dispose(): void {
    this.disposed = true;
  }
}


describe('McpSession calls', () => {
  function slowServer(): McpServer {
    const server = echoServer();
    server.registerTool('steps', { description: 'Reports progress, then answers' }, async (ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= 4; i++) {
        await new Promise((r) => setTimeout(r, 40));
        if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 4 } });
      }
      return { content: [{ type: 'text', text: 'all steps' }] };
    });
    server.registerTool('never', { description: 'Never answers' }, () => new Promise(() => undefined));
    return server;
  }

  it('keeps a call alive while the tool reports progress, and tells the caller each step', async () => {
    const session = await open(new TestTransportFactory({ make: () => linkedTo(slowServer()) })).opened;
    const steps: number[] = [];
    // A stepped clock: four 40 ms steps outlast the 100 ms timeout only because each progress resets it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const pending = session.callTool('steps', {}, { timeoutMs: 100, maxTotalTimeoutMs: 5000, onProgress: (p) => steps.push(p.progress) });
      await vi.advanceTimersByTimeAsync(200);
      const result = await pending;
      expect(result.content).toEqual([{ type: 'text', text: 'all steps' }]);
      expect(steps).toEqual([1, 2, 3, 4]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives up a call, or a request, that gets no answer in time', async () => {
    const session = await open(new TestTransportFactory({ make: () => linkedTo(slowServer()) })).opened;
    await expect(session.callTool('never', {}, { timeoutMs: 50, maxTotalTimeoutMs: 5000 })).rejects.toMatchObject({ kind: 'timeout', message: 'no answer within 0.1 s' });
    const stop = new AbortController();
    const pending = session.request({ method: 'tools/call', params: { name: 'never', arguments: {} } }, { timeoutMs: 60_000, maxTotalTimeoutMs: 60_000, signal: stop.signal });
    stop.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    await expect(session.request({ method: 'tools/call', params: { name: 'never', arguments: {} } }, { timeoutMs: 50, maxTotalTimeoutMs: 50 })).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('takes a refusal of a session without OAuth for a failed request, not for a lost sign-in', async () => {
    const factory = new TestTransportFactory({
      make: () => tapSends(linkedTo(echoServer()), (m) => ('method' in m && m.method === 'tools/call' ? new SdkHttpError(SdkErrorCode.SendFailed, 'HTTP 401', { status: 401 }) : undefined)),
    });
    const session = await open(factory).opened;
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed', message: expect.stringMatching(/^could not reach the server: /) });
    expect(session.closed).toBe(false);
  });

  it('explains a refused connection with advice about credentials, by default as one without its own header', async () => {
    const factory = new TestTransportFactory({ make: () => tapSends(linkedTo(echoServer()), () => new SdkHttpError(SdkErrorCode.SendFailed, 'HTTP 401', { status: 401 })) });
    await expect(open(factory).opened).rejects.toThrow(/^the server refused the connection \(HTTP 401\): it needs credentials/);
    await expect(open(factory, { sendsAuthorization: true }).opened).rejects.toThrow(/the "Authorization" header was sent and rejected/);
  });

  it('lists skills through the Skills extension, passing over entries that break its rules', async () => {
    // A hand-written peer: the SDK server has no Skills extension of its own.
    const make = () => {
      const [client, peer] = InMemoryTransport.createLinkedPair();
      peer.onmessage = (m: JSONRPCMessage) => {
        if (!('id' in m) || !('method' in m)) return;
        const reply = (result: unknown) => void peer.send({ jsonrpc: '2.0', id: m.id, result } as JSONRPCMessage);
        if (m.method === 'initialize') return reply({ protocolVersion: (m.params as { protocolVersion: string }).protocolVersion, capabilities: { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } }, serverInfo: { name: 'skills', version: '1' } });
        if (m.method === 'skills/list') return reply({ skills: [{ uri: 'skill://a/SKILL.md', frontmatter: { name: 'a', description: 'A' }, resources: 'dynamic' }, { uri: 'not a skill' }] });
        if (m.method === 'tools/list') return reply({ tools: [] });
        void peer.send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } } as JSONRPCMessage);
      };
      void peer.start();
      return client;
    };
    const session = await open(new TestTransportFactory({ make })).opened;
    const listing = await session.skills.list();
    expect(listing.skills.map((s) => s.frontmatter.name)).toEqual(['a']);
    expect(listing.invalid).toHaveLength(1);
  });
});

describe('McpSession eras', () => {
  it('does not open a listen stream with a 2025-era server, nor warn about one', async () => {
    const { opened, logs } = open(new TestTransportFactory({ make: () => linkedTo(echoServer()) }));
    await opened;
    expect(logs.filter((l) => l.includes('subscriptions/listen'))).toEqual([]);
  });

  it('tells a 2025-era server that roots changed, and never a 2026-07-28 one (it asks with each request)', async () => {
    const endpoint = modernEndpoint(() => echoServer());
    const session = await open(new TestTransportFactory({ make: () => endpoint.transport() }), { handlers: { roots: () => [] } }).opened;
    session.notifyRootsChanged();
    await session.callTool('echo', { text: 'after' }, call);
    expect(endpoint.methods).not.toContain('notifications/roots/list_changed');
  });

  it('warns when the listen stream cannot be opened: list changes will not be seen', async () => {
    const endpoint = modernEndpoint(() => echoServer());
    const factory = new TestTransportFactory({ make: () => tapSends(endpoint.transport(), (m) => ('method' in m && m.method === 'subscriptions/listen' ? new Error('stream refused') : undefined)) });
    const { opened, logs } = open(factory);
    await opened;
    await expect.poll(() => logs.filter((l) => l.includes('list changes will not be seen'))).toEqual(['warn harness list changes will not be seen: subscriptions/listen failed: stream refused']);
  });
});

describe('McpSession answering the server', () => {
  it('answers sampling with the handler it was given, and relists resources and prompts when told they changed', async () => {
    const server = echoServer('content', { resources: { listChanged: true }, prompts: { listChanged: true } });
    server.registerResource('a', 'mem://a', {}, () => ({ contents: [] }));
    server.registerPrompt('p', { description: 'p' }, () => ({ messages: [] }));
    const asked: string[] = [];
    const session = await open(new TestTransportFactory({ make: () => linkedTo(server) }), {
      handlers: {
        sample: async (name, params) => {
          asked.push(`${name}: ${params.maxTokens}`);
          return { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' };
        },
      },
    }).opened;
    expect(await server.server.createMessage({ messages: [], maxTokens: 5 })).toMatchObject({ content: { text: 'sampled' } });
    expect(asked).toEqual(['mem: 5']);
    const changes: string[] = [];
    session.onDidChangeLists((kind) => changes.push(kind));
    server.registerResource('b', 'mem://b', {}, () => ({ contents: [] }));
    await expect.poll(() => changes).toContain('resources');
    server.registerPrompt('q', { description: 'q' }, () => ({ messages: [] }));
    await expect.poll(() => changes).toContain('prompts');
    expect(session.lists.resources.map((r) => r.uri)).toEqual(['mem://a', 'mem://b']);
    expect(session.lists.prompts.map((p) => p.name)).toEqual(['p', 'q']);
  });
});

describe('McpSession liveness', () => {
  /** A server behind a switch: while `dead`, every message the client sends fails as a broken connection does. */
  function switchable() {
    let dead = false;
    const pings: number[] = [];
    const factory = new TestTransportFactory({
      make: () =>
        tapSends(linkedTo(echoServer()), (m) => {
          if ('method' in m && m.method === 'ping') pings.push(Date.now());
          return dead && 'method' in m ? new Error('socket hang up') : undefined;
        }),
    });
    return { factory, pings, setDead: (value: boolean) => (dead = value) };
  }

  it('asks a remote server whether it is still there after a call fails to reach it, and closes when it is not', async () => {
    const { factory, pings, setDead } = switchable();
    const session = await open(factory).opened;
    const closed = new Promise<string>((resolve) => session.onDidClose(resolve));
    setDead(true);
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed' });
    expect(await closed).toBe('the server stopped answering: socket hang up');
    expect(pings).toHaveLength(1);
  });

  it('probes once for failures together, and again for a later one', async () => {
    const { factory, pings, setDead } = switchable();
    const session = await open(factory).opened;
    let refuse = true;
    factory.created[0].send = ((send) => async (m: JSONRPCMessage, o?: never) => {
      if (refuse && 'method' in m && m.method === 'tools/call') throw new Error('reset');
      return send(m, o);
    })(factory.created[0].send.bind(factory.created[0]));
    await Promise.all([1, 2, 3].map(() => session.callTool('echo', { text: 'x' }, call).catch(() => undefined)));
    await expect.poll(() => pings.length).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(pings).toHaveLength(1);
    await session.callTool('echo', { text: 'x' }, call).catch(() => undefined);
    await expect.poll(() => pings.length).toBe(2);
    refuse = false;
    setDead(false);
    expect(session.closed).toBe(false);
  });

  it('logs a transport error and checks the server, unless it is a refused sign-in', async () => {
    const { factory, pings } = switchable();
    const { opened, logs } = open(factory);
    await opened;
    const transport = factory.created[0] as { onerror?: (e: Error) => void };
    transport.onerror?.(new UnauthorizedError('token expired'));
    expect(logs.at(-1)).toBe('warn harness transport: token expired');
    await new Promise((r) => setTimeout(r, 20));
    expect(pings).toHaveLength(0);
    transport.onerror?.(new Error('stream reset'));
    expect(logs.at(-1)).toBe('warn harness transport: stream reset');
    await expect.poll(() => pings.length).toBe(1);
  });

  it('never probes a stdio server: its pipe closing says it is gone', async () => {
    const pings: string[] = [];
    const factory = new TestTransportFactory({ kind: 'stdio', make: () => tapSends(linkedTo(echoServer()), (m) => void ('method' in m && m.method === 'ping' && pings.push('ping'))) });
    await open(factory).opened;
    (factory.created[0] as { onerror?: (e: Error) => void }).onerror?.(new Error('EPIPE'));
    await new Promise((r) => setTimeout(r, 20));
    expect(pings).toEqual([]);
  });
});

describe('McpSession handshakes, more', () => {
  it('takes a stdio server that never answers the probe for a 2025-era one, as the SDK does for local pipes', async () => {
    const factory = new TestTransportFactory({
      kind: 'stdio',
      probeTimeoutMs: () => 100,
      make: () => {
        const transport = linkedTo(echoServer());
        const send = transport.send.bind(transport);
        transport.send = async (m, o) => ('method' in m && m.method === 'server/discover' ? undefined : send(m, o));
        return transport;
      },
    });
    const { opened, logs } = open(factory);
    const session = await opened;
    expect(session.protocolVersion).toBe('2025-11-25');
    expect(logs).toContain('info harness the server did not take server/discover (a 2025-era server): connected with initialize, protocol 2025-11-25');
  });

  it('keeps the session whose first transport hung up on the probe: the retry is the session', async () => {
    const make = (i: number) => {
      const transport = linkedTo(echoServer());
      if (i > 0) return transport;
      return tapSends(transport, (m) => {
        if ('method' in m && m.method === 'server/discover') void transport.close();
      });
    };
    const factory = new TestTransportFactory({ kind: 'stdio', make, probeFallback: () => 'hung up on the probe' });
    const session = await open(factory).opened;
    expect(factory.created).toHaveLength(2);
    expect(session.closed).toBe(false);
    expect(await session.callTool('echo', { text: 'retried' }, call)).toMatchObject({ content: [{ text: 'retried' }] });
  });

  it('gives initialize the startup time when there is no probe', async () => {
    const silent = new TestTransportFactory({
      kind: 'sse',
      make: () => {
        const transport = linkedTo(echoServer());
        transport.send = async () => undefined;
        return transport;
      },
    });
    await expect(open(silent, { startupTimeoutMs: 150 }).opened).rejects.toThrow('no answer to initialize within 0.1 s');
  });

  it('opens a listen stream for prompt and resource changes of a server without tools', async () => {
    const endpoint = modernEndpoint(() => new Server({ name: 'docs', version: '1' }, { capabilities: { prompts: { listChanged: true }, resources: { listChanged: true } } }));
    const session = await open(new TestTransportFactory({ make: () => endpoint.transport() })).opened;
    await expect.poll(() => endpoint.methods).toContain('subscriptions/listen');
    expect(session.lists.tools).toEqual([]);
  });

  it('does not call its close a drop: no reason is told, and calls after it say the connection closed', async () => {
    const session = await open(new TestTransportFactory({ make: () => linkedTo(echoServer()) })).opened;
    const reasons: string[] = [];
    session.onDidClose((r) => reasons.push(r));
    await session.close();
    expect(reasons).toEqual([]);
    await expect(session.callTool('echo', { text: 'x' }, call)).rejects.toMatchObject({ kind: 'connection_closed', message: 'connection closed' });
  });

  it('makes a call whose tool reports progress to a caller that does not listen for it', async () => {
    const server = echoServer();
    server.registerTool('noisy', { description: 'Reports progress' }, async (ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1 } });
      return { content: [{ type: 'text', text: 'quietly done' }] };
    });
    const session = await open(new TestTransportFactory({ make: () => linkedTo(server) })).opened;
    expect(await session.callTool('noisy', {}, call)).toMatchObject({ content: [{ text: 'quietly done' }] });
  });
});
