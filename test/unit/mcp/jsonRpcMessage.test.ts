import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { readJsonRpcMessage } from '../../../src/core/mcp/jsonRpcMessage';

/** What the SDK's own parser makes of `value`: the message, or that it threw. */
function sdk(value: unknown): unknown {
  try {
    return parseJSONRPCMessage(value);
  } catch {
    return 'refused';
  }
}

function ours(value: unknown): unknown {
  try {
    return readJsonRpcMessage(value);
  } catch {
    return 'refused';
  }
}

const response = { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: 'hello' }] } };

describe('readJsonRpcMessage', () => {
  it('takes a plain result response as it is, without copying it', () => {
    expect(readJsonRpcMessage(response)).toBe(response);
    const named = { jsonrpc: '2.0', id: 'call-1', result: {} };
    expect(readJsonRpcMessage(named)).toBe(named);
  });

  // Each value is JSON as a server could send it; the two must agree on every one.
  const cases: Record<string, unknown> = {
    'a result response': response,
    'a string id': { jsonrpc: '2.0', id: 'a', result: {} },
    'a result with _meta': { jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 1 }, content: [] } },
    'a result whose _meta is not an object': { jsonrpc: '2.0', id: 1, result: { _meta: 'x' } },
    'a result with serverInfo in _meta': { jsonrpc: '2.0', id: 1, result: { _meta: { 'io.modelcontextprotocol/serverInfo': 5 } } },
    'a fractional id': { jsonrpc: '2.0', id: 1.5, result: {} },
    'an id past the safe integers': { jsonrpc: '2.0', id: 2 ** 60, result: {} },
    'a negative id': { jsonrpc: '2.0', id: -3, result: {} },
    'a null id': { jsonrpc: '2.0', id: null, result: {} },
    'no id': { jsonrpc: '2.0', result: {} },
    'version 1.0': { jsonrpc: '1.0', id: 1, result: {} },
    'no version': { id: 1, result: {} },
    'a result that is an array': { jsonrpc: '2.0', id: 1, result: [] },
    'a result that is null': { jsonrpc: '2.0', id: 1, result: null },
    'a result that is a string': { jsonrpc: '2.0', id: 1, result: 'ok' },
    'an extra key': { jsonrpc: '2.0', id: 1, result: {}, extra: true },
    'a __proto__ key': JSON.parse('{"jsonrpc":"2.0","id":1,"result":{},"__proto__":{"x":1}}'),
    'both result and error': { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } },
    'an error response': { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } },
    'a request': { jsonrpc: '2.0', id: 7, method: 'roots/list' },
    'a notification': { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
    'a result and a method': { jsonrpc: '2.0', id: 1, method: 'x', result: {} },
    'an array': [response],
    'a string': 'hello',
    'null': null,
    'a number': 42,
  };

  for (const [name, value] of Object.entries(cases)) {
    it(`agrees with the SDK's parser on ${name}`, () => {
      expect(ours(value)).toEqual(sdk(value));
    });
  }

  it('refuses what is not a message, as the SDK does', () => {
    expect(() => readJsonRpcMessage({ jsonrpc: '2.0', id: 1.5, result: {} })).toThrow();
    expect(() => readJsonRpcMessage({ jsonrpc: '2.0', id: 1, result: {}, extra: 1 })).toThrow();
    expect(() => readJsonRpcMessage({ jsonrpc: '2.0', id: 1, result: [] })).toThrow();
  });
});
