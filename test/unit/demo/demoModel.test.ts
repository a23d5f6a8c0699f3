import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without types, run by `npm start` as is
import { decide, DEMO_MODEL_ID } from '../../../demo/model/demoModel.mjs';

const tool = (name: string, properties: Record<string, { type: string }> = {}) => ({ type: 'function', function: { name, description: '', parameters: { type: 'object', properties } } });
const TOOLS = [
  tool('mcp__everything__echo', { message: { type: 'string' } }),
  tool('mcp__everything__get-sum', { a: { type: 'number' }, b: { type: 'number' } }),
  tool('mcp__filesystem__list_allowed_directories'),
  tool('mcp__filesystem__list_directory', { path: { type: 'string' } }),
  tool('mcp__memory__create_entities', { entities: { type: 'array' } }),
];
const user = (content: string) => [{ role: 'user', content }];

describe('the demo model script', () => {
  it('maps its phrases to the offered tools, with arguments from their schemas', () => {
    expect(decide(user('echo hello world'), TOOLS).call).toEqual({ name: 'mcp__everything__echo', args: { message: 'hello world' } });
    expect(decide(user('add 2 and 3'), TOOLS).call).toEqual({ name: 'mcp__everything__get-sum', args: { a: 2, b: 3 } });
    expect(decide(user('list the demo folder'), TOOLS).call).toEqual({ name: 'mcp__filesystem__list_allowed_directories', args: {} });
    expect(decide(user('remember that the build uses esbuild.'), TOOLS).call).toEqual({
      name: 'mcp__memory__create_entities',
      args: { entities: [{ name: 'the build uses esbuild', entityType: 'fact', observations: ['the build uses esbuild'] }] },
    });
  });

  it('lists what it can do otherwise, under its label', () => {
    const reply = decide(user('what is the weather?'), TOOLS);
    expect(reply.call).toBeUndefined();
    expect(reply.text).toContain(DEMO_MODEL_ID);
  });

  it('says which tool is missing when it is not offered', () => {
    expect(decide(user('echo hi'), []).text).toMatch(/no enabled tool/);
  });

  it('lists the allowed folder after asking for it, then reports the listing', () => {
    const ask = { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'mcp__filesystem__list_allowed_directories', arguments: '{}' } }] };
    const result = { role: 'tool', tool_call_id: 'c1', content: '<tool_output tool="x">\nAllowed directories:\n/work/demo\n</tool_output>' };
    expect(decide([...user('list the demo folder'), ask, result], TOOLS).call).toEqual({ name: 'mcp__filesystem__list_directory', args: { path: '/work/demo' } });
    const ask2 = { role: 'assistant', content: '', tool_calls: [{ id: 'c2', type: 'function', function: { name: 'mcp__filesystem__list_directory', arguments: '{"path":"/work/demo"}' } }] };
    const listing = { role: 'tool', tool_call_id: 'c2', content: '<tool_output tool="x">\n[FILE] README.md\n</tool_output>' };
    expect(decide([...user('list'), ask, result, ask2, listing], TOOLS).text).toContain('[FILE] README.md');
  });

  it('reports a denied call with its reason', () => {
    const ask = { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'mcp__everything__echo', arguments: '{}' } }] };
    const denied = { role: 'tool', tool_call_id: 'c1', content: '<tool_output tool="x" error="true">\nDenied by the user: not now\n</tool_output>' };
    expect(decide([...user('echo x'), ask, denied], TOOLS).text).toContain('not now');
  });
});
