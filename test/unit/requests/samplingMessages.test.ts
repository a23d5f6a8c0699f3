import { describe, expect, it } from 'vitest';
import { describeModelPreferences, toAskMessages, toChatMessages, toModelTools, toSamplingResult } from '../../../src/core/requests/samplingMessages';

const params = {
  maxTokens: 100,
  modelPreferences: { hints: [{ name: 'claude-3' }, { name: 'small' }], costPriority: 0.2, speedPriority: 0.8 },
  tools: [{ name: 'get_weather', description: 'Weather', inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } } } }],
  messages: [
    { role: 'user' as const, content: { type: 'text' as const, text: 'weather in Oslo?' } },
    { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'get_weather', input: { city: 'Oslo' } }] },
    { role: 'user' as const, content: [{ type: 'tool_result' as const, toolUseId: 't1', content: [{ type: 'text' as const, text: 'rain' }] }] },
    { role: 'user' as const, content: [{ type: 'image' as const, data: 'AAAA', mimeType: 'image/png' }, { type: 'text' as const, text: 'and this?' }] },
  ],
};

describe('sampling messages', () => {
  it('become the providers\' conversation: tool uses as calls, tool results as tool messages', () => {
    expect(toChatMessages(params as never)).toEqual([
      { role: 'user', content: 'weather in Oslo?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
      { role: 'tool', toolCallId: 't1', toolName: 'get_weather', content: 'rain', isError: false },
      { role: 'user', content: '[image: image/png, 3 bytes]\nand this?' },
    ]);
    expect(toModelTools(params as never)).toEqual([{ name: 'get_weather', description: 'Weather', inputSchema: params.tools[0].inputSchema }]);
  });

  it('read as text on a card, with preferences in words', () => {
    expect(toAskMessages(params as never).map((m) => m.text)).toEqual(['weather in Oslo?', '[asks for tool get_weather]', 'rain', '[image: image/png, 3 bytes]\nand this?']);
    expect(describeModelPreferences(params as never)).toBe('hints: claude-3, small; cost 0.2; speed 0.8');
    expect(describeModelPreferences({ messages: [], maxTokens: 1 })).toBeUndefined();
  });

  it('answer a server in the shape its request calls for', () => {
    expect(toSamplingResult('hi', [], 'm', 'stop', false)).toEqual({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm', stopReason: 'endTurn' });
    expect(toSamplingResult('', [{ id: 'c', name: 'get_weather', arguments: '{"city":"Oslo"}' }], 'm', 'tool_calls', true)).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'c', name: 'get_weather', input: { city: 'Oslo' } }],
      model: 'm',
      stopReason: 'toolUse',
    });
    expect(toSamplingResult('cut', [], 'm', 'length', true)).toMatchObject({ content: [{ type: 'text', text: 'cut' }], stopReason: 'maxTokens' });
  });
});
