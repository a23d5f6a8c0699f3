import { PassThrough } from 'node:stream';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { HarnessMcpServer } from '../../../src/core/serve/HarnessMcpServer';
import { gatewayUri } from '../../../src/core/serve/ServeCatalog';
import { serveStdio } from '../../../src/core/serve/serveStdio';
import { memoryHarness } from '../../support/memoryHarness';
import { recordingAudit } from './listenerRig';

const disposers: Array<() => unknown> = [];
afterEach(async () => {
  for (const d of disposers.splice(0).reverse()) await d();
});

/** serve over a pair of in-process streams; `send` writes one JSON-RPC line, `lines` is every line it wrote back. */
async function stdioRig() {
  const rig = memoryHarness({ docs: { command: 'docs' } }, { docs: { content: true } });
  disposers.push(() => rig.harness.dispose());
  await rig.harness.start();
  const audit = recordingAudit();
  const mcp = new HarnessMcpServer(rig.harness, { gateway: true, audit: audit.sink });
  disposers.push(() => mcp.dispose());
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const errors: Error[] = [];
  const served = serveStdio(mcp, stdin, stdout, (e) => errors.push(e));
  disposers.push(() => (stdin.end(), served));
  const lines: Array<Record<string, unknown>> = [];
  stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)));
  const send = (message: object) => stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return { ...rig, mcp, audit, stdin, stdout, served, errors, lines, send };
}

const meta = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_CAPABILITIES_META_KEY]: {}, [CLIENT_INFO_META_KEY]: { name: 'piped', version: '3' } };
const uri = gatewayUri('docs', 'note://readme');
const listenRequest = (id: number | string) => ({ id, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: [uri] }, _meta: meta } });

describe('serveStdio for 2026-07-28 clients', () => {
  it('relays the resources a listen stream names, tells the client of updates, and lets go when the listen is cancelled', async () => {
    const s = await stdioRig();
    s.send(listenRequest(7));
    await expect.poll(() => s.last('docs').calls).toContain('subscribe note://readme');
    expect(s.audit.starts.at(-1)?.client).toMatchObject({ transport: 'stdio', name: 'piped', version: '3', protocolVersion: '2026-07-28' });
    // The upstream subscription is in place once its answer is back: until then an update may be missed, so send until one arrives.
    const updates = () => s.lines.filter((l) => l.method === 'notifications/resources/updated');
    await expect.poll(async () => (await s.last('docs').server.server.sendResourceUpdated({ uri: 'note://readme' }), updates().length)).toBeGreaterThan(0);
    expect(updates()[0]).toMatchObject({ params: { uri } });
    s.send({ method: 'notifications/cancelled', params: { requestId: 7 } });
    await expect.poll(() => s.last('docs').calls).toContain('unsubscribe note://readme');
  });

  it('replaces a listen sent again under the same id, and ignores cancellations of other requests', async () => {
    const s = await stdioRig();
    s.send(listenRequest('a'));
    await expect.poll(() => s.last('docs').calls).toContain('subscribe note://readme');
    // The earlier listen under the id ends (its upstream subscription with it) and the new one takes its place.
    s.send(listenRequest('a'));
    const calls = ['subscribe note://readme', 'unsubscribe note://readme', 'subscribe note://readme'];
    await expect.poll(() => s.last('docs').calls).toEqual(calls);
    s.send({ method: 'notifications/cancelled', params: { requestId: 'other' } });
    s.send({ method: 'notifications/cancelled', params: {} });
    s.send({ method: 'notifications/cancelled' });
    s.send({ method: 'notifications/other', params: { requestId: 'a' } });
    s.send({ id: 3, method: 'tools/call', params: { name: 'mcp__docs__echo', arguments: { text: 'marker' }, _meta: meta } });
    await expect.poll(() => s.last('docs').calls).toContain('echo marker');
    expect(s.last('docs').calls).toEqual([...calls, 'echo marker']);
    s.send({ method: 'notifications/cancelled', params: { requestId: 'a' } });
    await expect.poll(() => s.last('docs').calls).toEqual([...calls, 'echo marker', 'unsubscribe note://readme']);
    expect(s.errors).toEqual([]);
  });

  it('lets go of the listens when the client closes its end', async () => {
    const s = await stdioRig();
    s.send(listenRequest(1));
    await expect.poll(() => s.last('docs').calls).toContain('subscribe note://readme');
    expect(s.mcp.sessionCount).toBe(1);
    s.stdin.end();
    await s.served;
    await expect.poll(() => s.last('docs').calls).toContain('unsubscribe note://readme');
    expect(s.mcp.sessionCount).toBe(0);
  });

  it('ends when its input is destroyed without ending', async () => {
    const s = await stdioRig();
    s.stdin.destroy();
    await s.served;
    expect(s.mcp.sessionCount).toBe(0);
  });

  it('reports a line that is not JSON-RPC to onError and goes on serving', async () => {
    const s = await stdioRig();
    s.stdin.write('{"not":"a message"}\n');
    await expect.poll(() => s.errors.length).toBeGreaterThan(0);
    s.send({ id: 2, method: 'tools/call', params: { name: 'mcp__docs__echo', arguments: { text: 'still here' }, _meta: meta } });
    await expect.poll(() => s.lines.find((l) => l.id === 2)).toMatchObject({ result: { content: [{ text: 'still here' }] } });
    expect(s.audit.starts.at(-1)?.client).toMatchObject({ transport: 'stdio', name: 'piped' });
  });
});
