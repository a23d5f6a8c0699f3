import * as http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach } from 'vitest';
import { HarnessMcpServer, type HarnessMcpServerOptions } from '../../../src/core/serve/HarnessMcpServer';
import { ServeHttpListener, type ServeHttpOptions } from '../../../src/core/serve/ServeHttpListener';
import type { AuditStart, IAuditSink } from '../../../src/core/permissions/AuditLog';
import { memoryHarness } from '../../support/memoryHarness';

// The listener's job is HTTP: it listens on a real loopback port; the servers behind it are in memory.
export const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** An audit sink that keeps who made each call. */
export function recordingAudit() {
  const starts: AuditStart[] = [];
  const sink: IAuditSink = { start: (e) => (starts.push(e), String(starts.length)), end: () => undefined, denied: () => undefined };
  return { sink, starts };
}

export async function listen(options: Partial<ServeHttpOptions> = {}, server: HarnessMcpServerOptions = {}) {
  const rig = memoryHarness({ docs: { command: 'docs' } }, { docs: { content: true, tools: { search: 'found' } } });
  closers.push(() => rig.harness.dispose());
  await rig.harness.start();
  const mcp = new HarnessMcpServer(rig.harness, { gateway: true, ...server });
  closers.push(() => mcp.dispose());
  const logs: string[] = [];
  const listener = new ServeHttpListener(mcp, { port: 0, token: 'secret-token', log: (m) => logs.push(m), ...options });
  const url = await listener.listen();
  closers.push(() => listener.close());
  return { ...rig, mcp, listener, url, logs };
}

export async function client(url: string, options: { modern?: boolean; token?: string } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${options.token ?? 'secret-token'}` } } });
  const c = new Client({ name: 'http-client', version: '1' }, options.modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await c.connect(transport);
  closers.push(() => c.close());
  return c;
}

export const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', body, headers: { Authorization: 'Bearer secret-token', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } });

export const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

/** A POST of `initialize` with exactly these headers (fetch cannot set Host): its status and body. */
export function rawPost(url: string, headers: Record<string, string>, body = initialize) {
  const u = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { Authorization: 'Bearer secret-token', 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
