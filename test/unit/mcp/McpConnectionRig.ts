import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import { McpConnection, type IMcpClock, type McpConnectionOptions, type McpTransportLogSink } from '../../../src/core/mcp/McpConnection';
import type { McpConnectionState, McpLogEntry } from '../../../src/core/mcp/McpServerSnapshot';
import { definition, launchOf } from '../../support/definitions';
import { linkedTo, TestTransportFactory } from '../../support/memoryTransports';

/** Time that moves only when the test says so. */
export class ManualClock implements IMcpClock {
  readonly waits: { ms: number; resolve: () => void }[] = [];
  constructor(public time = 7_000_000) {}
  now(): number {
    return this.time;
  }
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wait = { ms, resolve };
      this.waits.push(wait);
      signal.addEventListener('abort', () => {
        const i = this.waits.indexOf(wait);
        if (i >= 0) this.waits.splice(i, 1);
        resolve();
      });
    });
  }
  /** Lets the oldest wait run out. */
  elapse(): number {
    const wait = this.waits.shift();
    if (!wait) throw new Error('nothing is waiting');
    this.time += wait.ms;
    wait.resolve();
    return wait.ms;
  }
}

/** A 2025-era server with one tool, `echo`. */
export function echoServer(): McpServer {
  const s = new McpServer({ name: 'echo-server', version: '2.0.0' });
  s.registerTool('echo', { description: 'Echoes', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  return s;
}

/**
 * A 2025-11-25 server written by hand whose every tool call becomes task `t1` (the SDK's server
 * would run the tool): `initialize`, `tools/list` with one tool, `tools/call` answered with a task.
 */
export function taskPeer(): Transport {
  const [client, peer] = InMemoryTransport.createLinkedPair();
  const capabilities = { tools: {}, tasks: { requests: { tools: { call: {} } } } };
  const answers: Record<string, (params: Record<string, unknown>) => unknown> = {
    initialize: (params) => ({ protocolVersion: params.protocolVersion, capabilities, serverInfo: { name: 'tasks', version: '1' } }),
    'tools/list': () => ({ tools: [{ name: 'slow', inputSchema: { type: 'object' } }] }),
    'tools/call': () => ({ task: { taskId: 't1', status: 'working', createdAt: '2026-01-01T00:00:00Z' } }),
  };
  peer.onmessage = (m: JSONRPCMessage) => {
    if (!('id' in m) || !('method' in m)) return;
    const answer = answers[m.method];
    const reply = answer ? { result: answer((m.params ?? {}) as Record<string, unknown>) } : { error: { code: -32601, message: 'Method not found' } };
    void peer.send({ jsonrpc: '2.0', id: m.id, ...reply } as JSONRPCMessage);
  };
  void peer.start();
  return client;
}

export interface ConnectionRig {
  readonly connection: McpConnection;
  readonly clock: ManualClock;
  readonly states: McpConnectionState[];
  readonly logs: McpLogEntry[];
  /** Every transport made, in order. */
  readonly transports: Transport[];
  /** Every transport factory the connection asked for (one an attempt), in order. */
  readonly factories: TestTransportFactory[];
  /** While it holds, new transports fail to start as a refused connection does. */
  setDown(value: boolean): void;
  /** Holds what the client sends until released (a server slow to answer); returns the release. */
  hold(): () => void;
}

const made: McpConnection[] = [];

/** Has {@link disposeConnections} stop and dispose `connection` too. */
export function trackConnection(connection: McpConnection): McpConnection {
  made.push(connection);
  return connection;
}

/** Stops and disposes every connection made since the last call (for `afterEach`). */
export async function disposeConnections(): Promise<void> {
  for (const c of made.splice(0)) {
    await c.stop();
    c.dispose();
  }
}

/** How a {@link connectionRig}'s transports look to the connection. */
export interface ConnectionRigOptions {
  /** The manual clock's start (ms). */
  readonly clockStart?: number;
  /** The pid a stdio transport reports. */
  readonly pid?: number;
  /** Why a transport says it ended. */
  readonly endReason?: string;
  /** Runs as each transport is made, with the sink the connection gave its factory. */
  readonly onTransport?: (sink: McpTransportLogSink) => void;
}

/** A connection to `peer` (default: a fresh {@link echoServer}) linked in memory, under a manual clock. */
export function connectionRig(
  entry: Parameters<typeof definition>[1],
  extra: Partial<McpConnectionOptions> = {},
  peer: () => Transport = () => linkedTo(echoServer()),
  options: ConnectionRigOptions = {},
): ConnectionRig {
  const clock = new ManualClock(options.clockStart);
  let down = false;
  let gate: Promise<void> | undefined;
  const transports: Transport[] = [];
  const factories: TestTransportFactory[] = [];
  const connection = new McpConnection({
    definition: definition('mem', entry),
    clientInfo: { name: 'test', version: '1' },
    handlers: {},
    resolveLaunch: launchOf,
    traceEnabled: () => false,
    clock,
    createTransports: (launch, _auth, sink) => {
      const factory = new TestTransportFactory({
        kind: launch.type,
        pid: launch.type === 'stdio' ? (options.pid ?? 4242) : undefined,
        endReason: options.endReason ?? 'the server went away',
        make: () => {
          options.onTransport?.(sink);
          const transport = peer();
          transports.push(transport);
          const start = transport.start.bind(transport);
          const send = transport.send.bind(transport);
          const refused = down;
          transport.start = async () => {
            if (refused) throw new Error('connection refused');
            return start();
          };
          transport.send = async (message, options) => {
            await gate;
            return send(message, options);
          };
          return transport;
        },
      });
      factories.push(factory);
      return factory;
    },
    ...extra,
  });
  made.push(connection);
  const states: McpConnectionState[] = [];
  const logs: McpLogEntry[] = [];
  connection.onDidChange((s) => states.push(s.state));
  connection.onDidLog((e) => logs.push(e));
  return {
    connection,
    clock,
    states,
    logs,
    transports,
    factories,
    setDown: (value) => (down = value),
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

/** Resolves with the connection's state once `test` holds for it. */
export function until(connection: McpConnection, test: (state: McpConnectionState) => boolean): Promise<McpConnectionState> {
  return new Promise((resolve) => {
    if (test(connection.state)) return resolve(connection.state);
    const listener = connection.onDidChange((s) => {
      if (!test(s.state)) return;
      listener.dispose();
      resolve(s.state);
    });
  });
}

/** Resolves once the connection waits for its next reconnect attempt (the time of it is set). */
export const waitingToReconnect = (connection: McpConnection) => until(connection, (s) => s.kind === 'reconnecting' && s.nextAttemptAt !== undefined);

/** Closes the transport of the running session, as a server that went away does. */
export async function dropServer(rig: ConnectionRig): Promise<void> {
  await rig.transports.at(-1)!.close();
}

export const call = { timeoutMs: 5000, maxTotalTimeoutMs: 5000 };
