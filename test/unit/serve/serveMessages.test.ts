import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { clientFromRequestMeta, EXPOSURE_POLICY, listenedResources, toMcpTool, unknownItem } from '../../../src/core/serve/serveMessages';
import { harnessTool } from '../../support/tools';

describe('EXPOSURE_POLICY', () => {
  it('allows an offered call under the exposure rules', async () => {
    expect(await EXPOSURE_POLICY.decide({ hook: undefined } as never, {} as never)).toEqual({ outcome: 'allow', decider: { by: 'rule', rule: 'serve exposure' } });
  });

  it('answers no for a hook that asks for a person, naming the hook', async () => {
    const decision = await EXPOSURE_POLICY.decide({ hook: { decision: 'ask', hook: 'confirm.sh', reason: 'risky' } } as never, {} as never);
    expect(decision).toEqual({
      outcome: 'deny',
      decider: { by: 'hook', hook: 'confirm.sh' },
      reason: 'the PreToolUse hook "confirm.sh" asks for a person\'s confirmation (risky), and nobody can be asked here',
    });
    expect(await EXPOSURE_POLICY.decide({ hook: { decision: 'allow', hook: 'ok.sh' } } as never, {} as never)).toMatchObject({ outcome: 'allow' });
  });
});

describe('unknownItem', () => {
  it('names what was asked for as an invalid-params error', () => {
    expect(unknownItem('prompt', 'secret')).toMatchObject({ code: -32602, message: expect.stringContaining('unknown prompt "secret"') });
  });
});

describe('toMcpTool', () => {
  it('offers only the fields a tool has', () => {
    const bare = harnessTool({ name: 'read_file', originalName: 'read_file', description: 'Reads', inputSchema: { type: 'object' } });
    expect(toMcpTool(bare)).toStrictEqual({ name: 'read_file', description: 'Reads', inputSchema: { type: 'object' } });
    const full = harnessTool({
      name: 'x',
      originalName: 'x',
      title: 'X tool',
      description: 'd',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      annotations: { readOnlyHint: true },
    });
    expect(toMcpTool(full)).toEqual({
      name: 'x',
      title: 'X tool',
      description: 'd',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      annotations: { readOnlyHint: true },
    });
    expect(toMcpTool({ ...bare, title: '' })).toHaveProperty('title', '');
  });
});

describe('clientFromRequestMeta', () => {
  const connection = { transport: 'http' as const, remoteAddress: '10.0.0.2' };

  it('adds the client and protocol a request names in its _meta to how it is connected', () => {
    const params = { _meta: { [CLIENT_INFO_META_KEY]: { name: 'cursor', version: '2.1' }, [PROTOCOL_VERSION_META_KEY]: '2026-07-28' } };
    expect(clientFromRequestMeta(params, connection)).toEqual({ transport: 'http', remoteAddress: '10.0.0.2', name: 'cursor', version: '2.1', protocolVersion: '2026-07-28' });
  });

  it('keeps only the connection when the request names nothing usable', () => {
    expect(clientFromRequestMeta(undefined, connection)).toEqual(connection);
    expect(clientFromRequestMeta({}, connection)).toEqual(connection);
    expect(clientFromRequestMeta({ _meta: { [PROTOCOL_VERSION_META_KEY]: 7 } }, connection)).toEqual(connection);
  });
});

describe('listenedResources', () => {
  const listen = (id: unknown, resourceSubscriptions?: unknown, method = 'subscriptions/listen') => ({ jsonrpc: '2.0', id, method, params: { notifications: { resourceSubscriptions } } });

  it('reads the resource URIs of a subscriptions/listen request, with a string or number id', () => {
    expect(listenedResources(listen(4, ['a://x', 9, 'b://y']))).toEqual({ id: 4, uris: ['a://x', 'b://y'] });
    expect(listenedResources(listen('s', ['a://x']))).toEqual({ id: 's', uris: ['a://x'] });
  });

  it('finds none in other messages, a listen without an id, or one that names no resources', () => {
    expect(listenedResources(undefined)).toBeUndefined();
    expect(listenedResources(listen(1, ['a://x'], 'tools/list'))).toBeUndefined();
    expect(listenedResources(listen(undefined, ['a://x']))).toBeUndefined();
    expect(listenedResources(listen({}, ['a://x']))).toBeUndefined();
    expect(listenedResources(listen(1, 'a://x'))).toBeUndefined();
    expect(listenedResources(listen(1, [3]))).toBeUndefined();
    expect(listenedResources(listen(1, []))).toBeUndefined();
    expect(listenedResources({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen' })).toBeUndefined();
    expect(listenedResources({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: {} })).toBeUndefined();
  });
});
