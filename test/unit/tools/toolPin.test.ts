import { describe, expect, it } from 'vitest';
import { diffDefinitions, pinTool, stableStringify, type PinnedFields } from '../../../src/core/tools/toolPin';

const tool: PinnedFields & { name: string } = {
  name: 'mcp__fx__echo',
  server: 'fx',
  originalName: 'echo',
  title: 'Echo',
  description: 'Returns its text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnlyHint: true },
};

describe('pinTool', () => {
  it('hashes the canonical definition with sha256', () => {
    const pin = pinTool(tool);
    expect(pin.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(pin.definition)).toEqual({ server: 'fx', name: 'echo', title: 'Echo', description: 'Returns its text', inputSchema: tool.inputSchema, annotations: { readOnlyHint: true } });
  });

  it('ignores key order and the exposed name', () => {
    const reordered: PinnedFields & { name: string } = { ...tool, name: 'mcp__fx_2__echo', inputSchema: { required: ['text'], properties: { text: { type: 'string' } }, type: 'object' } };
    expect(pinTool(reordered).hash).toBe(pinTool(tool).hash);
  });

  it('changes with each pinned field', () => {
    const base = pinTool(tool).hash;
    const variants: PinnedFields[] = [
      { ...tool, originalName: 'echo2' },
      { ...tool, server: 'other' },
      { ...tool, server: undefined },
      { ...tool, title: 'Echo!' },
      { ...tool, title: undefined },
      { ...tool, description: 'Returns its text.' },
      { ...tool, inputSchema: { ...tool.inputSchema, required: [] } },
      { ...tool, annotations: { readOnlyHint: false } },
      { ...tool, annotations: undefined },
    ];
    const hashes = variants.map((v) => pinTool(v).hash);
    for (const hash of hashes) expect(hash).not.toBe(base);
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(pinTool({ ...tool, annotations: undefined }).hash).toBe(pinTool({ ...tool, annotations: {} }).hash);
  });
});

describe('stableStringify', () => {
  it('sorts keys at every depth, drops undefined and keeps arrays in order', () => {
    expect(stableStringify({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(stableStringify(null)).toBe('null');
    expect(stableStringify('x')).toBe('"x"');
  });
});

describe('diffDefinitions', () => {
  it('shows changed, added and removed leaves by path', () => {
    const before = stableStringify({ description: 'a', inputSchema: { properties: { x: { type: 'string' } } }, title: 'T' });
    const after = stableStringify({ description: 'b', inputSchema: { properties: { x: { type: 'number' }, y: { type: 'string' } } } });
    expect(diffDefinitions(before, after).split('\n')).toEqual([
      '~ description: "a" -> "b"',
      '~ inputSchema.properties.x.type: "string" -> "number"',
      '+ inputSchema.properties.y: {"type":"string"}',
      '- title: "T"',
    ]);
  });

  it('orders changes by path even when the input is not sorted', () => {
    expect(diffDefinitions('{"b":1,"a":1}', '{"b":2,"a":2}')).toBe('~ a: 1 -> 2\n~ b: 1 -> 2');
  });

  it('is empty for equal definitions and compares arrays and non-JSON text whole', () => {
    expect(diffDefinitions('{"a":[1,2]}', '{"a":[1,2]}')).toBe('');
    expect(diffDefinitions('{"a":[1,2]}', '{"a":[2,1]}')).toBe('~ a: [1,2] -> [2,1]');
    expect(diffDefinitions('not json', '{"a":1}')).toBe('~ (definition): "not json" -> {"a":1}');
    expect(diffDefinitions('{"a":{"b":1}}', '{"a":null}')).toBe('~ a: {"b":1} -> null');
  });
});
