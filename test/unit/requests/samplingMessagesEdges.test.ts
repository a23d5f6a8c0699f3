import { describe, expect, it } from 'vitest';
import { describeModelPreferences, toAskMessages, toChatMessages, toModelTools, toSamplingResult } from '../../../src/core/requests/samplingMessages';

const request = (messages: unknown[], extra: Record<string, unknown> = {}) => ({ maxTokens: 10, messages, ...extra }) as never;

describe('sampling messages, each shape', () => {
  it('keeps an assistant message that also says something, and one without tool uses has no calls', () => {
    expect(
      toChatMessages(
        request([
          { role: 'assistant', content: [{ type: 'text', text: 'Looking.' }, { type: 'tool_use', id: 'a', name: 'find', input: { q: 1 } }, { type: 'tool_use', id: 'b', name: 'read' }] },
          { role: 'assistant', content: { type: 'text', text: 'Done.' } },
        ]),
      ),
    ).toStrictEqual([
      { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'a', name: 'find', arguments: '{"q":1}' }, { id: 'b', name: 'read', arguments: '{}' }] },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('names a tool result by the latest call with its id, says when it failed, and keeps the text beside it', () => {
    const messages = toChatMessages(
      request([
        { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'old' }] },
        { role: 'user', content: { type: 'text', text: 'again' } },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'new' }] },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'x', content: { type: 'text', text: 'bad' }, isError: true }, { type: 'text', text: 'so?' }] },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'nobody', content: [] }] },
      ]),
    );
    expect(messages.slice(3)).toStrictEqual([
      { role: 'tool', toolCallId: 'x', toolName: 'new', content: 'bad', isError: true },
      { role: 'user', content: 'so?' },
      { role: 'tool', toolCallId: 'nobody', toolName: 'tool', content: '', isError: false },
    ]);
  });

  it('shows each kind of content in words, skipping what is not content at all', () => {
    const texts = toAskMessages(
      request([
        { role: 'user', content: [{ type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' }, { type: 'image' }, { type: 'resource_link', uri: 'x' }] },
        { role: 'user', content: [null, 'text', { text: 'no type' }, { type: 7 }, { type: 'text' }, { type: 'text', text: 'kept' }] },
        { role: 'user', content: [{ type: 'tool_result', content: [{ type: 'text', text: 'inner' }] }] },
      ]),
    ).map((m) => m.text);
    expect(texts).toEqual(['[audio: audio/wav, 6 bytes]\n[image: unknown type, 0 bytes]\n[resource_link]', 'kept', 'inner']);
  });

  it('gives tools without a description an empty one, and no tools when none are offered', () => {
    expect(toModelTools(request([], { tools: [{ name: 't', inputSchema: { type: 'object' } }] }))).toEqual([{ name: 't', description: '', inputSchema: { type: 'object' } }]);
    expect(toModelTools(request([]))).toEqual([]);
  });

  it('words the preferences it finds, and none when there are none to word', () => {
    expect(describeModelPreferences(request([], { modelPreferences: {} }))).toBeUndefined();
    expect(describeModelPreferences(request([], { modelPreferences: { hints: [{}, { name: 'fast' }], intelligencePriority: 1 } }))).toBe('hints: fast; intelligence 1');
    expect(describeModelPreferences(request([], { modelPreferences: { hints: [{}], costPriority: 0 } }))).toBe('cost 0');
  });

  it('answers with tool uses and text as the model gave them, and arguments that are not an object as none', () => {
    const calls = [
      { id: '1', name: 'a', arguments: '' },
      { id: '2', name: 'b', arguments: '[1]' },
      { id: '3', name: 'c', arguments: 'null' },
      { id: '4', name: 'd', arguments: 'not json' },
      { id: '5', name: 'e', arguments: '"text"' },
    ];
    const result = toSamplingResult('Calling.', calls, 'm', 'stop', true) as { content: Array<Record<string, unknown>>; stopReason: string };
    expect(result.stopReason).toBe('toolUse');
    expect(result.content).toEqual([{ type: 'text', text: 'Calling.' }, ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: {} }))]);
    expect(toSamplingResult('', [], 'm', 'tool_calls', false)).toMatchObject({ stopReason: 'toolUse' });
    expect(toSamplingResult('', [], 'm', 'other', true)).toEqual({ role: 'assistant', content: [{ type: 'text', text: '' }], model: 'm', stopReason: 'endTurn' });
    expect(toSamplingResult('x', [], 'm', 'length', false)).toMatchObject({ stopReason: 'maxTokens' });
  });
});
