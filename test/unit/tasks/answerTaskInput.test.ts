import { describe, expect, it } from 'vitest';
import type { IMcpClientHandlers } from '../../../src/core/mcp/McpClientHandlers';
import { answerTaskInput } from '../../../src/core/tasks/answerTaskInput';

const signal = new AbortController().signal;

describe("answering what a 2026-07-28 task waits on with the host's handlers", () => {
  it('asks the person through the elicitation handler, as a form unless the server says otherwise', async () => {
    const asked: unknown[] = [];
    const handlers: IMcpClientHandlers = {
      elicit: async (server, params) => (asked.push([server, params]), { action: 'accept', content: { name: 'Ada' } }),
    };
    expect(await answerTaskInput(handlers, 's', { method: 'elicitation/create', params: { message: 'Name?' } }, signal)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    await answerTaskInput(handlers, 's', { method: 'elicitation/create', params: { mode: 'url', message: 'Open' } }, signal);
    await answerTaskInput(handlers, 's', { method: 'elicitation/create' }, signal);
    expect(asked).toEqual([
      ['s', { mode: 'form', message: 'Name?' }],
      ['s', { mode: 'url', message: 'Open' }],
      ['s', { mode: 'form' }],
    ]);
  });

  it('declines a question when the host asks people nothing', async () => {
    expect(await answerTaskInput({}, 's', { method: 'elicitation/create', params: { message: 'Name?' } }, signal)).toEqual({ action: 'decline' });
  });

  it('samples through the sampling handler and lists the roots', async () => {
    const sampled: unknown[] = [];
    const handlers: IMcpClientHandlers = {
      sample: async (server, params) => (sampled.push([server, params]), { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }),
      roots: () => [{ uri: 'file:///w', name: 'w' }],
    };
    const params = { messages: [], maxTokens: 10 };
    expect(await answerTaskInput(handlers, 's', { method: 'sampling/createMessage', params }, signal)).toEqual({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' });
    expect(sampled).toEqual([['s', params]]);
    expect(await answerTaskInput(handlers, 's', { method: 'roots/list' }, signal)).toEqual({ roots: [{ uri: 'file:///w', name: 'w' }] });
  });

  it.each(['sampling/createMessage', 'roots/list', 'ping'])('fails the follow when the host does not answer "%s"', async (method) => {
    await expect(answerTaskInput({}, 's', { method }, signal)).rejects.toMatchObject({ kind: 'protocol', message: `the task waits for "${method}", which this host does not answer` });
  });
});
