import { afterEach, describe, expect, it } from 'vitest';
import { CALL_TOOL_RESULT_SCHEMA } from '../../../src/core/mcp/callToolResultSchema';
import { McpCallError } from '../../../src/core/mcp/McpCallError';
import type { McpCallOptions } from '../../../src/core/mcp/McpSession';
import { TestTransportFactory } from '../../support/memoryTransports';
import { scriptedPeer, sessionOpener } from './McpSessionFixtures';

const { open, closeAll } = sessionOpener();
afterEach(closeAll);

const call: McpCallOptions = { timeoutMs: 5000, maxTotalTimeoutMs: 10_000 };

/** A 2025-11-25 session whose one tool `t` answers every call with `result`. */
async function sessionAnswering(result: unknown) {
  const peer = scriptedPeer({ tools: {} }, (method) => {
    if (method === 'tools/list') return { result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } };
    if (method === 'tools/call') return { result };
  });
  const session = await open(new TestTransportFactory({ make: () => peer.transport })).opened;
  expect(session.protocolVersion).toBe('2025-11-25');
  return session;
}

async function failureOf(promise: Promise<unknown>): Promise<McpCallError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpCallError);
  return err as McpCallError;
}

describe('the answer to a 2025-era tools/call', () => {
  it('passes a tool result through as the server sent it, its own keys and _meta kept', async () => {
    const result = { content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 }, isError: false, _meta: { 'x/trace': 'a' } };
    const session = await sessionAnswering(result);
    expect(await session.callTool('t', {}, call)).toEqual(result);
  });

  it('gives a result without content an empty content list, as the 2025 wire rules', async () => {
    const session = await sessionAnswering({ structuredContent: { n: 2 } });
    expect(await session.callTool('t', {}, call)).toEqual({ content: [], structuredContent: { n: 2 } });
  });

  // (A body with `task` is a created task: the transport below the SDK takes it, see McpSessionTasks.)
  it.each(['inputRequests', 'requestState'])('refuses a body without content that carries %s: no other result family stands in for a tool result', async (key) => {
    const session = await sessionAnswering({ [key]: {} });
    const err = await failureOf(session.callTool('t', {}, call));
    expect(err.kind).toBe('protocol');
    expect(err.message).toContain(`the server's answer is not a valid tool result`);
    expect(err.message).toContain(`content is required when the body carries '${key}'`);
  });

  it('refuses content that is not a list of content blocks, saying where', async () => {
    const session = await sessionAnswering({ content: 'plain text' });
    const err = await failureOf(session.callTool('t', {}, call));
    expect(err.kind).toBe('protocol');
    expect(err.message).toMatch(/not a valid tool result: .*content/);
  });

  it('keeps the session for the next call after a malformed answer', async () => {
    let n = 0;
    const peer = scriptedPeer({ tools: {} }, (method) => {
      if (method === 'tools/list') return { result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } };
      if (method === 'tools/call') return { result: n++ === 0 ? { content: 5 } : { content: [{ type: 'text', text: 'ok' }] } };
    });
    const session = await open(new TestTransportFactory({ make: () => peer.transport })).opened;
    await failureOf(session.callTool('t', {}, call));
    expect(await session.callTool('t', {}, call)).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect(session.closed).toBe(false);
  });
});

describe('CALL_TOOL_RESULT_SCHEMA', () => {
  const validate = (value: unknown) => CALL_TOOL_RESULT_SCHEMA['~standard'].validate(value);

  it('checks bodies that are not objects against the tool result schema itself', () => {
    for (const value of [null, [], 'x', 3, undefined]) expect(validate(value)).toHaveProperty('issues');
  });

  it('refuses a task without content, as it refuses the other result families', () => {
    expect(validate({ task: { taskId: 't' } })).toEqual({ issues: [{ message: "content is required when the body carries 'task'" }] });
  });

  it('lets an empty content list stand with a foreign key beside it: content was sent', () => {
    expect(validate({ content: [], task: {} })).toEqual({ value: { content: [], task: {} } });
  });
});
