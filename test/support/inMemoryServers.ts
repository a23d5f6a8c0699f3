import { InMemoryTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod/v4';
import type { McpTransportKind } from '../../src/core/config/types';
import { isProbeRefused } from '../../src/core/mcp/mcpErrors';
import type { IMcpTransportFactory } from '../../src/core/mcp/McpTransportConnector';

/** A real SDK server in this process: tools echo, add_tool (adds `extra` and notifies) and wait (until cancelled). */
export function createTestServer(name = 'in-memory'): { server: McpServer; cancelled: string[] } {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, logging: {}, resources: { subscribe: true } }, instructions: 'In memory.' });
  const cancelled: string[] = [];
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) }, ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('add_tool', { description: 'Adds a tool named extra' }, () => {
    server.registerTool('extra', { description: 'Added later' }, () => ({ content: [{ type: 'text', text: 'extra' }] }));
    return { content: [{ type: 'text', text: 'added' }] };
  });
  server.registerTool('wait', { description: 'Waits until cancelled' }, (ctx) => {
    const signal = ctx.mcpReq.signal;
    return new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        cancelled.push('wait');
        resolve({ content: [{ type: 'text', text: 'cancelled' }] });
      });
    });
  });
  return { server, cancelled };
}

export interface LinkedFactoryOptions {
  readonly kind?: McpTransportKind;
  /** A new server for each transport (a restarted process); default one server per factory. */
  server(): McpServer;
  /** The server side hangs up on `server/discover`, as some 2025-era servers do (first transport only). */
  readonly hangUpOnDiscover?: boolean;
  /** Fails the client's first send of this method with the given error (what an HTTP transport throws). */
  readonly failFirst?: { readonly method: string; readonly error: () => Error };
  /** While it says so, a transport cannot be started (the server is down). */
  readonly refuse?: () => boolean;
  /** Nothing the client sends arrives (a server that never answers). */
  readonly silent?: boolean;
}

/** An {@link IMcpTransportFactory} over the SDK's linked in-memory pairs, each connected to a real server. */
export class LinkedTransportFactory implements IMcpTransportFactory {
  readonly created: InMemoryTransport[] = [];
  readonly servers: McpServer[] = [];
  readonly finished: URLSearchParams[] = [];
  private _failed = false;

  constructor(private readonly _o: LinkedFactoryOptions) {}

  get kind(): McpTransportKind {
    return this._o.kind ?? 'http';
  }

  create(): Transport {
    const [client, serverSide] = InMemoryTransport.createLinkedPair();
    const first = this.created.length === 0;
    this.created.push(client);
    const server = this._o.server();
    this.servers.push(server);
    if (first && this._o.hangUpOnDiscover) {
      const start = serverSide.start.bind(serverSide);
      serverSide.start = async () => {
        await start();
        const handler = serverSide.onmessage;
        serverSide.onmessage = (message: JSONRPCMessage, extra) => {
          if ('method' in message && message.method === 'server/discover') void serverSide.close();
          else handler?.(message, extra);
        };
      };
    }
    void server.connect(serverSide);
    if (this._o.silent) client.send = async () => undefined;
    if (this._o.refuse?.()) client.start = async () => Promise.reject(new Error('connection refused'));
    const fail = this._o.failFirst;
    if (fail) {
      const send = client.send.bind(client);
      client.send = async (message, options) => {
        if (!this._failed && 'method' in message && message.method === fail.method) {
          this._failed = true;
          throw fail.error();
        }
        return send(message, options);
      };
    }
    return client;
  }

  probeTimeoutMs(startupTimeoutMs: number): number | undefined {
    return this.kind === 'sse' ? undefined : Math.min(3000, startupTimeoutMs);
  }

  probeFallback(err: unknown): string | undefined {
    return isProbeRefused(err) ? 'hung up on server/discover' : undefined;
  }

  fallBack(): string | undefined {
    return undefined;
  }

  describeEnd(): string {
    return 'the in-memory server closed the connection';
  }

  pid(): number | undefined {
    return undefined;
  }

  async finishAuth(callback: URLSearchParams): Promise<void> {
    this.finished.push(callback);
  }
}
