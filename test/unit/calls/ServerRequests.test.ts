import type { Prompt, Resource } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { ResourceSubscriptions } from '../../../src/core/calls/ResourceSubscriptions';
import { checkPromptArguments, ServerRequestError, ServerRequests, type IRequestConnection, type IServerRequestPolicy } from '../../../src/core/calls/ServerRequests';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import type { McpServerSnapshot } from '../../../src/core/mcp/McpServerSnapshot';

/** A server as the requests see it: what it lists, and every request sent to it. */
function server(options: { resources?: Resource[]; prompts?: Prompt[]; subscribe?: boolean; completions?: boolean; fail?: Error; toolTimeoutMs?: number } = {}) {
  const sent: Array<{ method: string; params?: Record<string, unknown>; timeoutMs: number }> = [];
  const connection: IRequestConnection = {
    definition: { ...(options.toolTimeoutMs ? { toolTimeoutMs: options.toolTimeoutMs } : {}) },
    snapshot: {
      resources: options.resources ?? [{ uri: 'doc://a', name: 'a' }],
      prompts: options.prompts ?? [{ name: 'greet', arguments: [{ name: 'who', required: true }, { name: 'tone' }] }],
      capabilities: { resources: { subscribe: options.subscribe ?? true }, ...(options.completions ? { completions: {} } : {}) },
    } as unknown as McpServerSnapshot,
    request: async (request, callOptions) => {
      sent.push({ method: request.method, params: request.params, timeoutMs: callOptions.timeoutMs });
      if (options.fail) throw options.fail;
      if (request.method === 'completion/complete') return { completion: { values: ['x'] } } as never;
      return (request.method === 'resources/read' ? { contents: [{ uri: 'doc://a', text: 'A' }] } : request.method === 'prompts/get' ? { messages: [] } : {}) as never;
    },
  };
  return { connection, sent };
}

function requests(connection: IRequestConnection | undefined, defaults = {}) {
  return new ServerRequests({ connection: (name) => (name === 's' ? connection : undefined), defaults: () => defaults });
}

const auditLog = () => {
  const lines: unknown[] = [];
  return { lines, audit: { start: (e: unknown) => (lines.push(['start', e]), 'id'), end: (id: string, r: unknown) => void lines.push(['end', id, r]), denied: (e: unknown) => void lines.push(['denied', e]) } };
};

describe('ServerRequests', () => {
  it('reads a resource under the timeout policy, audited with what the client asked for', async () => {
    const { connection, sent } = server({ toolTimeoutMs: 1234 });
    const { lines, audit } = auditLog();
    expect(await requests(connection).readResource('s', 'doc://a', { audit, auditAs: 'mcp-harness://s/doc%3A%2F%2Fa' })).toEqual({ contents: [{ uri: 'doc://a', text: 'A' }] });
    expect(sent).toEqual([{ method: 'resources/read', params: { uri: 'doc://a' }, timeoutMs: 1234 }]);
    expect(lines[0]).toEqual(['start', { client: undefined, method: 'resources/read', tool: 'mcp-harness://s/doc%3A%2F%2Fa', server: 's', arguments: { uri: 'doc://a' }, decider: { by: 'caller' } }]);
    expect(lines[1]).toEqual(['end', 'id', { outcome: 'ok', outputChars: JSON.stringify({ contents: [{ uri: 'doc://a', text: 'A' }] }).length }]);
  });

  it('answers an unknown server, prompt or a denial as unknown, sending nothing', async () => {
    const { connection, sent } = server();
    const deny: IServerRequestPolicy = { decide: () => ({ outcome: 'deny', decider: { by: 'rule', rule: 'x' }, reason: 'not offered' }) };
    const { lines, audit } = auditLog();
    await expect(requests(connection).readResource('other', 'doc://a', { audit })).rejects.toMatchObject({ kind: 'unknown', code: -32602, message: 'unknown resource "doc://a"' });
    await expect(requests(connection).getPrompt('s', 'nope')).rejects.toMatchObject({ kind: 'unknown', message: 'unknown prompt "nope"' });
    await expect(requests(connection).readResource('s', 'doc://a', { policy: deny, audit })).rejects.toMatchObject({ kind: 'denied', message: 'unknown resource "doc://a"' });
    expect(sent).toEqual([]);
    expect(lines.map((l) => (l as [string, { reason?: string }])[1].reason)).toEqual(['not offered', 'not offered']);
  });

  it('checks prompt arguments before sending: strings only, required ones present', async () => {
    const { connection, sent } = server();
    await expect(requests(connection).getPrompt('s', 'greet', { tone: 'warm' })).rejects.toMatchObject({ kind: 'invalid_arguments', message: 'invalid arguments for prompt "greet" of server "s": missing required argument "who"' });
    await expect(requests(connection).getPrompt('s', 'greet', { who: 3 })).rejects.toMatchObject({ kind: 'invalid_arguments' });
    expect(sent).toEqual([]);
    await requests(connection).getPrompt('s', 'greet', { who: 'you' });
    expect(sent).toEqual([{ method: 'prompts/get', params: { name: 'greet', arguments: { who: 'you' } }, timeoutMs: 60_000 }]);
  });

  it('relays a server failure with its kind and code, and audits it as an error', async () => {
    const { connection } = server({ fail: new McpCallError('protocol', 'server error -32002: gone', -32002) });
    const { lines, audit } = auditLog();
    await expect(requests(connection).readResource('s', 'doc://a', { audit })).rejects.toMatchObject({ kind: 'protocol', code: -32002, message: 's: server error -32002: gone' });
    expect(lines.at(-1)).toEqual(['end', 'id', { outcome: 'error', outputChars: 0, error: 'server error -32002: gone' }]);
    const other = server({ fail: new TypeError('boom') });
    await expect(requests(other.connection).readResource('s', 'doc://a')).rejects.toBeInstanceOf(TypeError);
  });

  it('refuses subscriptions a server does not offer', async () => {
    const { connection, sent } = server({ subscribe: false });
    await expect(requests(connection).subscription('s', 'doc://a', 'resources/subscribe')).rejects.toBeInstanceOf(ServerRequestError);
    await requests(connection).subscription('s', 'doc://a', 'resources/unsubscribe');
    expect(sent.map((r) => r.method)).toEqual(['resources/unsubscribe']);
  });

  it('completes only where the server offers completions, with the context given', async () => {
    const plain = server();
    expect(await requests(plain.connection).complete('s', { type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'y' })).toEqual({ values: [] });
    expect(plain.sent).toEqual([]);
    const able = server({ completions: true });
    expect(await requests(able.connection).complete('s', { type: 'ref/resource', uri: 'doc://{id}' }, { name: 'id', value: '1' }, { other: 'x' })).toEqual({ values: ['x'] });
    expect(able.sent[0]!.params).toEqual({ ref: { type: 'ref/resource', uri: 'doc://{id}' }, argument: { name: 'id', value: '1' }, context: { arguments: { other: 'x' } } });
    await expect(requests(able.connection).complete('nope', { type: 'ref/prompt', name: 'greet' }, { name: 'who', value: '' })).rejects.toMatchObject({ kind: 'unknown' });
  });
});

describe('checkPromptArguments', () => {
  it('names what is wrong', () => {
    expect(checkPromptArguments({ arguments: [{ name: 'a', required: true }, { name: 'b', required: true }] }, {})).toBe('missing required arguments "a", "b"');
    expect(checkPromptArguments({}, [] as never)).toBe('arguments must be an object');
    expect(checkPromptArguments({ arguments: [{ name: 'a' }] }, {})).toBeUndefined();
  });
});

describe('ResourceSubscriptions', () => {
  function setup() {
    const { connection, sent } = server();
    const logs: string[] = [];
    const subs = new ResourceSubscriptions(requests(connection), (s, m) => logs.push(`${s}: ${m}`));
    const updates: string[] = [];
    subs.onDidUpdate((u) => updates.push(`${u.server} ${u.uri}`));
    return { subs, sent, updates, logs };
  }
  const one = {};
  const two = {};

  it('subscribes upstream once however many hold it, and unsubscribes when the last one lets go', async () => {
    const { subs, sent } = setup();
    await Promise.all([subs.subscribe('s', 'doc://a', one), subs.subscribe('s', 'doc://a', two)]);
    expect(sent.map((r) => r.method)).toEqual(['resources/subscribe']);
    expect(subs.isSubscribed('s', 'doc://a')).toBe(true);
    await subs.unsubscribe('s', 'doc://a', one);
    expect(sent.map((r) => r.method)).toEqual(['resources/subscribe']);
    await subs.unsubscribe('s', 'doc://a', two);
    expect(sent.map((r) => r.method)).toEqual(['resources/subscribe', 'resources/unsubscribe']);
    expect(subs.isSubscribed('s', 'doc://a')).toBe(false);
    await subs.unsubscribe('s', 'doc://a', two);
    expect(sent).toHaveLength(2);
  });

  it('passes on updates of subscribed resources only, and renews them after a reconnect', async () => {
    const { subs, sent, updates } = setup();
    subs.updated('s', 'doc://a');
    await subs.subscribe('s', 'doc://a', one);
    subs.updated('s', 'doc://a');
    expect(updates).toEqual(['s doc://a']);
    subs.renew('s');
    subs.renew('other');
    await new Promise((r) => setImmediate(r));
    expect(sent.map((r) => r.method)).toEqual(['resources/subscribe', 'resources/subscribe']);
    // Holders read it again: what changed while the server was away is unknown.
    expect(updates).toEqual(['s doc://a', 's doc://a']);
  });

  it('drops every subscription of a holder that went away, and forgets a removed server', async () => {
    const { subs, sent } = setup();
    await subs.subscribe('s', 'doc://a', one);
    await subs.subscribe('s', 'doc://b', one);
    subs.drop(one);
    await new Promise((r) => setImmediate(r));
    expect(sent.filter((r) => r.method === 'resources/unsubscribe')).toHaveLength(2);
    await subs.subscribe('s', 'doc://c', two);
    subs.forgetServer('s');
    expect(subs.isSubscribed('s', 'doc://c')).toBe(false);
  });

  it('forgets a subscription the server refused, so the next try asks again', async () => {
    const failing = server({ fail: new McpCallError('protocol', 'no') });
    const subs = new ResourceSubscriptions(requests(failing.connection), () => {});
    await expect(subs.subscribe('s', 'doc://a', one)).rejects.toBeInstanceOf(ServerRequestError);
    expect(subs.isSubscribed('s', 'doc://a')).toBe(false);
    await expect(subs.subscribe('s', 'doc://a', two)).rejects.toBeInstanceOf(ServerRequestError);
    expect(failing.sent).toHaveLength(2);
  });
});

describe('ServerRequests decisions', () => {
  function recording(outcome: 'allow' | 'deny' = 'allow') {
    const seen: unknown[] = [];
    const policy: IServerRequestPolicy = {
      decide: (target) => (seen.push(target), outcome === 'allow' ? { outcome, decider: { by: 'rule', rule: 'p' } } : { outcome, decider: { by: 'rule', rule: 'p' }, reason: 'not offered' }),
    };
    return { seen, policy };
  }

  it('shows the policy exactly what is asked: server, URI and listed name, or the prompt', async () => {
    const { connection } = server({ completions: true });
    const { seen, policy } = recording();
    const r = requests(connection);
    await r.readResource('s', 'doc://a', { policy });
    await r.readResource('s', 'doc://unlisted', { policy });
    await r.getPrompt('s', 'greet', { who: 'x' }, { policy });
    await r.subscription('s', 'doc://a', 'resources/subscribe', { policy });
    await r.subscription('s', 'doc://b', 'resources/unsubscribe', { policy });
    await r.complete('s', { type: 'ref/prompt', name: 'greet' }, { name: 'who', value: '' }, {}, { policy });
    await r.complete('s', { type: 'ref/resource', uri: 'doc://{id}' }, { name: 'id', value: '' }, {}, { policy });
    expect(seen).toStrictEqual([
      { kind: 'resource', server: 's', uri: 'doc://a', name: 'a' },
      { kind: 'resource', server: 's', uri: 'doc://unlisted' },
      { kind: 'prompt', server: 's', name: 'greet' },
      { kind: 'resource', server: 's', uri: 'doc://a', name: 'a' },
      { kind: 'resource', server: 's', uri: 'doc://b' },
      { kind: 'prompt', server: 's', name: 'greet' },
      { kind: 'resource', server: 's', uri: 'doc://{id}' },
    ]);
  });

  it('refuses completions the policy denies, naming only what was asked', async () => {
    const { connection, sent } = server({ completions: true });
    const { policy } = recording('deny');
    const r = requests(connection);
    await expect(r.complete('s', { type: 'ref/prompt', name: 'greet' }, { name: 'who', value: '' }, {}, { policy })).rejects.toMatchObject({ name: 'ServerRequestError', kind: 'denied', code: -32602, message: 'unknown prompt "greet"' });
    await expect(r.complete('s', { type: 'ref/resource', uri: 'doc://{id}' }, { name: 'id', value: '' }, {}, { policy })).rejects.toMatchObject({ message: 'unknown resource "doc://{id}"' });
    await expect(r.complete('x', { type: 'ref/prompt', name: 'greet' }, { name: 'who', value: '' })).rejects.toMatchObject({ code: -32602, message: 'no server named "x"' });
    expect(sent).toEqual([]);
    const failing = server({ completions: true, fail: new McpCallError('timeout', 'slow', -32001) });
    await expect(requests(failing.connection).complete('s', { type: 'ref/prompt', name: 'greet' }, { name: 'who', value: '' })).rejects.toMatchObject({ kind: 'timeout', code: -32001, message: 's: slow' });
  });

  it('audits prompts with their arguments, a denial with what the client asked for, and a stopped request as cancelled', async () => {
    const { connection } = server();
    const { lines, audit } = auditLog();
    await requests(connection).getPrompt('s', 'greet', { who: 'me' }, { audit });
    expect(lines[0]).toEqual(['start', { client: undefined, method: 'prompts/get', tool: 'greet', server: 's', arguments: { who: 'me' }, decider: { by: 'caller' } }]);
    const { policy } = recording('deny');
    lines.length = 0;
    await expect(requests(connection).readResource('s', 'doc://a', { audit, policy, auditAs: 'mcp-harness://s/x' })).rejects.toThrow();
    expect(lines).toEqual([['denied', { client: undefined, method: 'resources/read', tool: 'mcp-harness://s/x', server: 's', arguments: { uri: 'doc://a' }, decider: { by: 'rule', rule: 'p' }, reason: 'not offered' }]]);
    lines.length = 0;
    await expect(requests(server().connection).readResource('missing', 'doc://a', { audit, auditAs: 'asked' })).rejects.toThrow();
    expect((lines[0] as [string, { tool: string }])[1].tool).toBe('asked');
    const stop = new AbortController();
    stop.abort();
    lines.length = 0;
    await expect(requests(server({ fail: new McpCallError('cancelled', 'cancelled') }).connection).readResource('s', 'doc://a', { audit, signal: stop.signal })).rejects.toThrow();
    expect(lines.at(-1)).toEqual(['end', 'id', { outcome: 'cancelled', outputChars: 0, error: 'cancelled' }]);
    // Without a policy, a refusal says what refused it.
    const caller: IServerRequestPolicy = { decide: () => ({ outcome: 'deny', decider: { by: 'caller' }, reason: 'no' }) };
    expect(caller.decide({ kind: 'prompt', server: 's', name: 'x' })).toMatchObject({ outcome: 'deny' });
  });

  it('refuses a subscription of a server without capabilities at all', async () => {
    const bare: IRequestConnection = { ...server().connection, snapshot: { resources: [], prompts: [] } as unknown as McpServerSnapshot };
    await expect(requests(bare).subscription('s', 'doc://a', 'resources/subscribe')).rejects.toMatchObject({ code: -32602, message: 's does not offer resource subscriptions' });
  });

  it('names the invalid arguments of a prompt with its JSON-RPC code', async () => {
    await expect(requests(server().connection).getPrompt('s', 'greet', {})).rejects.toMatchObject({ code: -32602, kind: 'invalid_arguments' });
    expect(checkPromptArguments({}, null as never)).toBe('arguments must be an object');
    expect(checkPromptArguments({}, 'x' as never)).toBe('arguments must be an object');
  });
});

describe('ResourceSubscriptions under failure', () => {
  it('makes a holder that waited for a failed subscription try again itself', async () => {
    const base = server();
    let fails = 1;
    const connection: IRequestConnection = {
      ...base.connection,
      request: async (request, options) => {
        if (request.method === 'resources/subscribe' && fails-- > 0) {
          await new Promise((r) => setTimeout(r, 5));
          throw new McpCallError('protocol', 'busy');
        }
        return base.connection.request(request, options);
      },
    };
    const subs = new ResourceSubscriptions(requests(connection), () => {});
    const first = subs.subscribe('s', 'doc://a', {});
    const second = subs.subscribe('s', 'doc://a', {});
    await expect(first).rejects.toBeInstanceOf(ServerRequestError);
    await second;
    expect(subs.isSubscribed('s', 'doc://a')).toBe(true);
    expect(base.sent.map((r) => r.method)).toEqual(['resources/subscribe']);
  });

  it('renews only the reconnected server\'s settled subscriptions, and says when one cannot be renewed', async () => {
    const a = server();
    let failRenewal = false;
    const connection: IRequestConnection = {
      ...a.connection,
      request: async (request, options) => {
        if (failRenewal) throw new McpCallError('protocol', 'gone');
        return a.connection.request(request, options);
      },
    };
    const logs: string[] = [];
    const r = new ServerRequests({ connection: (name) => (name === 's' || name === 't' ? connection : undefined), defaults: () => ({}) });
    const subs = new ResourceSubscriptions(r, (s, m) => logs.push(`${s}: ${m}`));
    await subs.subscribe('s', 'doc://a', {});
    await subs.subscribe('t', 'doc://b', {});
    a.sent.length = 0;
    subs.renew('s');
    await new Promise((res) => setImmediate(res));
    expect(a.sent.map((x) => x.params?.uri)).toEqual(['doc://a']);
    failRenewal = true;
    subs.renew('t');
    await new Promise((res) => setImmediate(res));
    expect(logs).toEqual(['t: could not renew the subscription to doc://b after reconnecting: t: gone']);
    subs.forgetServer('s');
    expect(subs.isSubscribed('t', 'doc://b')).toBe(true);
    expect(subs.isSubscribed('s', 'doc://a')).toBe(false);
    const holder = {};
    failRenewal = false;
    await subs.subscribe('t', 'doc://c', holder);
    failRenewal = true;
    subs.drop(holder);
    await new Promise((res) => setImmediate(res));
    expect(logs.at(-1)).toBe('t: resources/unsubscribe failed: t: gone');
    expect(subs.isSubscribed('t', 'doc://b')).toBe(true);
  });
});
