import { SdkError, SdkErrorCode, SdkHttpError, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { McpResolvedLaunch } from '../../../src/core/config';
import { McpStdioTransport } from '../../../src/core/mcp/McpStdioTransport';
import { McpTransportConnector } from '../../../src/core/mcp/McpTransportConnector';

// Nothing here connects: transports start only when a session starts them.
function connector(launch: Partial<McpResolvedLaunch>) {
  const lines: string[] = [];
  const c = new McpTransportConnector({
    launch: { type: 'http', args: [], env: {}, headers: {}, ...launch },
    onStderrLine: (l) => lines.push(`err ${l}`),
    onStdoutNoise: (l) => lines.push(`out ${l}`),
  });
  return { c, lines };
}

const http = (status: number) => new SdkHttpError(SdkErrorCode.SendFailed, `HTTP ${status}`, { status });

describe('McpTransportConnector', () => {
  it('makes a process transport for stdio, probing briefly and retrying initialize when the server hangs up', () => {
    const { c } = connector({ type: 'stdio', command: 'node', args: ['s.js'] });
    expect(c.create()).toBeInstanceOf(McpStdioTransport);
    expect(c.probeTimeoutMs(30_000)).toBe(3000);
    expect(c.probeTimeoutMs(1000)).toBe(1000);
    expect(c.probeFallback(new SdkError(SdkErrorCode.EraNegotiationFailed, 'x'), 3000)).toBe('the server ended the connection on server/discover; starting it again for initialize');
    expect(c.probeFallback(new SdkError(SdkErrorCode.RequestTimeout, 'x', { timeout: 3000 }), 3000)).toBeUndefined();
    expect(c.fallBack(http(404))).toBeUndefined();
    expect(c.kind).toBe('stdio');
  });

  it('tells how a process that never started ended, and has no pid', () => {
    const { c } = connector({ type: 'stdio', command: 'node' });
    const t = c.create();
    expect(c.describeEnd(t, [])).toBe('the server closed its output');
    expect(c.describeEnd(t, ['first', 'last words'])).toBe('the server closed its output: last words');
    expect(c.pid(t)).toBeUndefined();
  });

  it('makes Streamable HTTP, takes an unanswered probe for a 2025-era server, and falls back to SSE on a 4xx', () => {
    const { c } = connector({ type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Key': 'k' } });
    const t = c.create();
    expect(t).toBeInstanceOf(StreamableHTTPClientTransport);
    expect(c.describeEnd(t, ['ignored'])).toBe('the server closed the connection');
    expect(c.pid(t)).toBeUndefined();
    expect(c.probeTimeoutMs(30_000)).toBe(10_000);
    expect(c.probeTimeoutMs(4000)).toBe(2000);
    expect(c.probeFallback(new SdkError(SdkErrorCode.RequestTimeout, 'x', { timeout: 2000 }), 2000)).toBe(
      'no answer to server/discover within 2 s: taking it for a 2025-era server that ignores unknown requests, trying initialize',
    );
    expect(c.probeFallback(new SdkError(SdkErrorCode.EraNegotiationFailed, 'x'), 2000)).toBeUndefined();
    for (const status of [401, 403, 500, 302]) expect(c.fallBack(http(status))).toBeUndefined();
    expect(c.fallBack(new Error('fetch failed'))).toBeUndefined();
    expect(c.kind).toBe('http');
    expect(c.fallBack(http(404))).toBe('Streamable HTTP answered 404; trying the legacy SSE transport');
    expect(c.kind).toBe('sse');
    expect(c.create()).toBeInstanceOf(SSEClientTransport);
    expect(c.probeTimeoutMs(30_000)).toBeUndefined();
    expect(c.fallBack(http(400))).toBeUndefined();
  });

  it('greets an SSE server without a probe and finishes sign-ins on the last HTTP transport only', async () => {
    const { c } = connector({ type: 'sse', url: 'http://127.0.0.1:1/sse' });
    expect(c.probeTimeoutMs(30_000)).toBeUndefined();
    await expect(c.finishAuth(new URLSearchParams())).rejects.toThrow('no HTTP transport to finish signing in on');
    const stdio = connector({ type: 'stdio', command: 'node' }).c;
    stdio.create();
    await expect(stdio.finishAuth(new URLSearchParams())).rejects.toThrow('no HTTP transport');
  });
});
