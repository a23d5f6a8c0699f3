import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ES module without types, run by `npm start` as is
import { decide, DEMO_MODEL_ID, DEMO_SUGGESTIONS } from '../../../demo/model/demoModel.mjs';

const tool = (name: string, properties: Record<string, { type: string }> = {}) => ({ type: 'function', function: { name, description: '', parameters: { type: 'object', properties } } });
const TOOLS = [
  tool('mcp__everything__echo', { message: { type: 'string' } }),
  tool('mcp__everything__get-sum', { a: { type: 'number' }, b: { type: 'number' } }),
  tool('mcp__filesystem__list_allowed_directories'),
  tool('mcp__filesystem__list_directory', { path: { type: 'string' } }),
  tool('mcp__memory__create_entities', { entities: { type: 'array' } }),
  tool('mcp__memory__read_graph'),
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

  it('understands ordinary phrasings of each example', () => {
    const called = (text: string) => decide(user(text), TOOLS).call?.name;
    for (const text of ['what files are in this workspace?', 'Which files are here in the workspace', 'show me the files', 'ls', 'what is in this folder?']) {
      expect(called(text), text).toBe('mcp__filesystem__list_allowed_directories');
    }
    for (const text of ['what do you remember?', 'What do you know?', 'recall', 'what did I tell you?', 'show your memory']) {
      expect(called(text), text).toBe('mcp__memory__read_graph');
    }
    expect(decide(user('please remember that tests run with vitest'), TOOLS).call?.args).toEqual({
      entities: [{ name: 'tests run with vitest', entityType: 'fact', observations: ['tests run with vitest'] }],
    });
    expect(decide(user('Note that 2 and 3 are small'), TOOLS).call?.name).toBe('mcp__memory__create_entities');
    expect(decide(user('say "hi there"'), TOOLS).call).toEqual({ name: 'mcp__everything__echo', args: { message: 'hi there' } });
    expect(decide(user('repeat: ping'), TOOLS).call).toEqual({ name: 'mcp__everything__echo', args: { message: 'ping' } });
    for (const text of ['what is 2 + 3?', "what's 2 plus 3", '2+3', 'sum of 2 and 3', 'calculate 2 + 3']) {
      expect(decide(user(text), TOOLS).call, text).toEqual({ name: 'mcp__everything__get-sum', args: { a: 2, b: 3 } });
    }
    for (const text of ['hello', 'what can you do?', 'help']) expect(called(text), text).toBeUndefined();
    expect(decide(user('write "hello there" to notes.txt'), [...TOOLS, tool('mcp__filesystem__write_file', { path: { type: 'string' }, content: { type: 'string' } })]).call).toEqual({
      name: 'mcp__filesystem__write_file',
      args: { path: 'notes.txt', content: 'hello there\n' },
    });
  });

  it('offers each of its suggestions as a phrase it understands', () => {
    for (const text of DEMO_SUGGESTIONS) expect(decide(user(text), TOOLS).call, text).toBeDefined();
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

describe('the demo model recalling', () => {
  const ask = { role: 'assistant', content: '', tool_calls: [{ id: 'g1', type: 'function', function: { name: 'mcp__memory__read_graph', arguments: '{}' } }] };
  const graph = (g: unknown) => ({ role: 'tool', tool_call_id: 'g1', content: `<tool_output tool="x">\n${JSON.stringify(g)}\n</tool_output>` });

  it('lists the remembered facts', () => {
    const reply = decide([...user('what do you remember?'), ask, graph({ entities: [{ name: 'b', entityType: 'fact', observations: ['the build uses esbuild'] }], relations: [] })], TOOLS);
    expect(reply.text).toContain('- the build uses esbuild');
  });

  it('says when it remembers nothing', () => {
    expect(decide([...user('recall'), ask, graph({ entities: [], relations: [] })], TOOLS).text).toMatch(/do not remember anything yet/);
  });
});
