import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HarnessMcpServer } from '../../../src/core/serve/HarnessMcpServer';
import { ServeHttpSessions } from '../../../src/core/serve/ServeHttpSessions';
import { serveStdio } from '../../../src/core/serve/serveStdio';
import { gatewayUri } from '../../../src/core/serve/ServeCatalog';
import { memoryHarness } from '../../support/memoryHarness';
import { client, closers, initialize, listen, post, rawPost } from './listenerRig';

describe('ServeHttpListener', () => {
  it('serves a 2025-era client in a session of its own, and a 2026-07-28 client per request', async () => {
    const { url, listener } = await listen();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const legacy = await client(url);
    expect(legacy.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(listener.sessionCount).toBe(1);
    expect(await legacy.callTool({ name: 'mcp__docs__search', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'found' }] });
    const modern = await client(url, { modern: true });
    expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(await modern.callTool({ name: 'mcp__docs__echo', arguments: { text: 'new' } })).toMatchObject({ content: [{ type: 'text', text: 'new' }] });
    expect(listener.sessionCount).toBe(1);
  });

  it('refuses what is not its endpoint, its token, its host or its origin, and bodies it cannot read', async () => {
    const { url } = await listen();
    const base = new URL(url);
    expect((await fetch(new URL('/other', base), { method: 'POST' })).status).toBe(404);
    const noToken = await fetch(url, { method: 'POST', body: initialize });
    expect(noToken.status).toBe(401);
    expect(noToken.headers.get('www-authenticate')).toBe('Bearer realm="mcp-harness"');
    expect((await post(url, initialize, { Authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(url, initialize, { Authorization: 'Basic secret-token' })).status).toBe(401);
    expect((await post(url, initialize, { Origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(url, initialize, { Origin: 'not a url' })).status).toBe(403);
    expect((await post(url, initialize, { Origin: `http://localhost:${base.port}` })).status).toBe(200);
    expect((await post(url, '{not json')).status).toBe(400);
    expect(await (await post(url, '{not json')).json()).toMatchObject({ error: { code: -32700, message: 'parse error: the body is not JSON' } });
    expect((await post(url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-session-id': 'nope' })).status).toBe(404);
    const notInitialize = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }));
    expect(notInitialize.status).toBe(400);
    expect((await post(url, 'x'.repeat(4 * 1024 * 1024 + 10))).status).toBe(413);
  });

  it('checks the Host header against loopback names and the ones it was told', async () => {
    const { url } = await listen({ allowedHosts: ['mcp.internal:8080'] });
    const status = async (host: string) => (await rawPost(url, { Host: host })).status;
    expect(await status('evil.example')).toBe(403);
    expect(await status('mcp.internal:8080')).toBe(200);
    expect(await status('localhost:1234')).toBe(200);
    expect(await status('[::1]:1234')).toBe(200);
  });

  it('answers 503 with Retry-After when every session place is taken', async () => {
    const { url } = await listen({ maxSessions: 1 });
    await client(url);
    const refused = await post(url, initialize);
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('tells a 2026-07-28 listener of updates to the resources it listed', async () => {
    const { url, last } = await listen();
    const modern = await client(url, { modern: true });
    const updates: string[] = [];
    modern.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    const uri = gatewayUri('docs', 'note://readme');
    const subscription = await modern.listen({ resourceSubscriptions: [uri] });
    await expect.poll(() => last('docs').calls).toContain('subscribe note://readme');
    await last('docs').server.server.sendResourceUpdated({ uri: 'note://readme' });
    await expect.poll(() => updates).toEqual([uri]);
    await subscription.close();
  });
});

describe('ServeHttpSessions', () => {
  it('ends a session idle too long, keeps one in use, and says when a place frees up', () => {
    let now = 1000;
    const closed: string[] = [];
    const logs: string[] = [];
    const sessions = new ServeHttpSessions({ idleTimeoutMs: 10_000, maxSessions: 2, now: () => now, log: (m) => logs.push(m) });
    closers.push(() => sessions.dispose());
    const session = (id: string) => ({ transport: { close: async () => void closed.push(id) } }) as never;
    sessions.add('a', session('a'));
    sessions.beginInitializing();
    expect(sessions.isFull).toBe(true);
    sessions.endInitializing();
    sessions.add('b', session('b'));
    expect(sessions.isFull).toBe(true);
    now += 4000;
    const done = sessions.use('b');
    expect(sessions.retryAfterSeconds()).toBe(6);
    now += 7000;
    expect(sessions.get('a')).toBeUndefined();
    expect(closed).toEqual(['a']);
    expect(logs).toEqual(['session a ended: idle for 11 s (limit 10 s)']);
    expect(sessions.get('b')).toBeDefined();
    done();
    done();
    now += 10_000;
    sessions.sweep();
    expect(sessions.size).toBe(0);
    expect(closed).toEqual(['a', 'b']);
    expect(sessions.use('gone')).toBeTypeOf('function');
  });
});

describe('serveStdio', () => {
  it('serves one client over a pair of streams until its input ends', async () => {
    const rig = memoryHarness({ docs: { command: 'docs' } }, { docs: {} });
    closers.push(() => rig.harness.dispose());
    await rig.harness.start();
    const mcp = new HarnessMcpServer(rig.harness, { gateway: true });
    closers.push(() => mcp.dispose());
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const served = serveStdio(mcp, stdin, stdout);
    const lines: string[] = [];
    stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
    stdin.write(`${initialize}\n`);
    await expect.poll(() => lines.length).toBe(1);
    expect(JSON.parse(lines[0])).toMatchObject({ id: 1, result: { serverInfo: { name: 'mcp-harness' } } });
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'mcp__docs__echo', arguments: { text: 'piped' } } })}\n`);
    await expect.poll(() => lines.length).toBe(2);
    expect(JSON.parse(lines[1])).toMatchObject({ id: 2, result: { content: [{ text: 'piped' }] } });
    stdin.end();
    await served;
  });
});
