import { describe, expect, it } from 'vitest';
import { ArgumentValidator } from '../../../src/core/tools/ArgumentValidator';

const subject = { exposedName: 'mcp__srv__tool', origin: 'tool "tool" of server "srv"' };

function setup() {
  const warnings: string[] = [];
  const validator = new ArgumentValidator({ warn: (m) => warnings.push(m) });
  const check = (schema: Record<string, unknown>, args: unknown) => validator.validate(subject, schema, args);
  return { validator, warnings, check };
}

const nested = {
  type: 'object',
  properties: {
    items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
    mode: { enum: ['fast', 'slow'] },
    path: { type: 'string' },
  },
  required: ['path'],
};

describe('ArgumentValidator', () => {
  it('accepts valid arguments', () => {
    const { check } = setup();
    expect(check(nested, { path: '/x', mode: 'fast', items: [{ name: 'a' }] })).toBeUndefined();
  });

  it('names every bad argument by its path', () => {
    const { check } = setup();
    expect(check(nested, { items: [{ name: 'ok' }, { name: 1 }], mode: 'medium' })).toBe(
      'invalid arguments for mcp__srv__tool: "items[1].name": must be string; ' +
        '"mode": must be one of "fast", "slow"; missing required argument "path"',
    );
  });

  it('treats undefined arguments as {}', () => {
    const { check } = setup();
    expect(check(nested, undefined)).toBe('invalid arguments for mcp__srv__tool: missing required argument "path"');
    expect(check({ type: 'object' }, undefined)).toBeUndefined();
  });

  it('reports arguments that are not an object', () => {
    const { check } = setup();
    expect(check({ type: 'object' }, [1])).toBe('invalid arguments for mcp__srv__tool: arguments must be object');
  });

  it('reports unexpected and nested missing arguments with their path', () => {
    const { check } = setup();
    const schema = {
      type: 'object',
      properties: {
        config: { type: 'object', properties: { depth: { type: 'integer' } }, required: ['depth'], additionalProperties: false },
      },
      additionalProperties: false,
    };
    const message = check(schema, { config: { deep: 1 }, x: true });
    expect(message).toContain('missing required argument "config.depth"');
    expect(message).toContain('unexpected argument "config.deep"');
    expect(message).toContain('unexpected argument "x"');
  });

  it('uses brackets only for real array indexes', () => {
    const { check } = setup();
    const schema = { type: 'object', properties: { map: { type: 'object', additionalProperties: { type: 'number' } } } };
    expect(check(schema, { map: { '0': 'zero' } })).toContain('"map.0": must be number');
  });

  it('checks patterns and formats', () => {
    const { check } = setup();
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[a-z]+$' },
        email: { type: 'string', format: 'email' },
        when: { type: 'string', format: 'date-time' },
      },
    };
    expect(check(schema, { id: 'abc', email: 'a@b.example', when: '2024-01-02T03:04:05Z' })).toBeUndefined();
    const message = check(schema, { id: 'ABC', email: 'nope', when: 'yesterday' });
    expect(message).toContain('"id": must match pattern "^[a-z]+$"');
    expect(message).toContain('"email": must match format "email"');
    expect(message).toContain('"when": must match format "date-time"');
  });

  it('resolves $ref to $defs (2020-12) and definitions (draft-07)', () => {
    const { check, warnings } = setup();
    const modern = {
      type: 'object',
      properties: { point: { $ref: '#/$defs/point' } },
      $defs: { point: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] } },
    };
    expect(check(modern, { point: { x: 1 } })).toBeUndefined();
    expect(check(modern, { point: { x: 'a' } })).toContain('"point.x": must be number');
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { point: { $ref: '#/definitions/point' } },
      definitions: { point: { type: 'object', required: ['y'] } },
    };
    expect(check(draft07, { point: {} })).toContain('missing required argument "point.y"');
    expect(warnings).toEqual([]);
  });

  it('reads array items by draft: tuple `items` in draft-07, `prefixItems` in 2020-12', () => {
    const { check, warnings } = setup();
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } },
    };
    expect(check(draft07, { pair: ['a', 1] })).toBeUndefined();
    expect(check(draft07, { pair: [1, 'a'] })).toMatch(/"pair\[0\]": must be string; "pair\[1\]": must be number/);
    expect(check(draft07, { pair: ['a', 1, 2] })).toContain('"pair": must NOT have more than 2 items');

    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
    };
    expect(check(draft2020, { pair: ['a', 1] })).toBeUndefined();
    expect(check(draft2020, { pair: [1, 'a'] })).toMatch(/"pair\[0\]": must be string; "pair\[1\]": must be number/);
    expect(check(draft2020, { pair: ['a', 1, 2] })).toContain('"pair": must NOT have more than 2 items');
    expect(warnings).toEqual([]);
  });

  it('supports 2019-09 and old drafts by their $schema', () => {
    const { check, warnings } = setup();
    const draft2019 = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { a: { type: 'string' } },
      unevaluatedProperties: false,
    };
    expect(check(draft2019, { a: 'x', b: 1 })).toContain('unexpected argument "b"');
    const draft06 = { $schema: 'http://json-schema.org/draft-06/schema#', type: 'object', properties: { n: { type: 'integer' } } };
    expect(check(draft06, { n: 1.5 })).toContain('"n": must be integer');
    const draft04 = { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { n: { type: 'string' } } };
    expect(check(draft04, { n: 1 })).toContain('"n": must be string');
    expect(warnings).toEqual([]);
  });

  it('lets calls through when the schema cannot be compiled, warning once', () => {
    const { check, warnings } = setup();
    const broken = { type: 'object', properties: { a: { type: 'no-such-type' } } };
    expect(check(broken, { a: 1 })).toBeUndefined();
    expect(check(broken, { a: 2 })).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('tool "tool" of server "srv"');
    expect(warnings[0]).toContain('type');
    const dangling = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    expect(check(dangling, { a: 1 })).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('#/$defs/missing');
  });

  it('keeps tools that reuse an $id apart', () => {
    const { check, warnings } = setup();
    const a = { $id: 'https://example.com/args', type: 'object', properties: { v: { $ref: 'https://example.com/v' } }, $defs: { v: { $id: 'https://example.com/v', type: 'string' } } };
    const b = { $id: 'https://example.com/args', type: 'object', properties: { v: { $ref: 'https://example.com/v' } }, $defs: { v: { $id: 'https://example.com/v', type: 'number' } } };
    expect(check(a, { v: 'text' })).toBeUndefined();
    expect(check(b, { v: 1 })).toBeUndefined();
    expect(check(b, { v: 'text' })).toContain('"v": must be number');
    expect(check(a, { v: 1 })).toContain('"v": must be string');
    expect(warnings).toEqual([]);
  });

  it('caps a long list of errors', () => {
    const { check } = setup();
    const properties = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const args = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`p${i}`, i]));
    expect(check({ type: 'object', properties }, args)).toMatch(/; and 5 more$/);
  });

  it('picks the draft from any $schema that names one, and 2020-12 for anything else', () => {
    const { check, warnings } = setup();
    const tuple = (meta: unknown) => ({
      ...(meta === undefined ? {} : { $schema: meta }),
      type: 'object',
      properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], prefixItems: [{ type: 'number' }] } },
    });
    // Draft-07 and 2019-09 read an array `items` as a tuple; 2020-12 reads `prefixItems` instead.
    const firstItemError = (meta: unknown) => check(tuple(meta), { pair: [1, 'a'] });
    expect(firstItemError('http://json-schema.org/draft-05/schema#')).toMatch(/"pair\[0\]": must be string/);
    expect(firstItemError('http://json-schema.org/draft-07/schema')).toMatch(/"pair\[0\]": must be string/);
    expect(firstItemError('https://json-schema.org/draft/2019-09/schema#')).toMatch(/"pair\[0\]": must be string/);
    expect(warnings).toEqual([]);
    const modern = { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'number' }] } } };
    for (const meta of ['https://example.com/my-meta', 'http://json-schema.org/draft-08/schema', 7]) {
      expect(check({ ...modern, $schema: meta }, { pair: ['a'] })).toBe('invalid arguments for mcp__srv__tool: "pair[0]": must be number');
    }
    expect(warnings).toEqual([]);
  });

  it('reports missing dependent arguments in both spellings', () => {
    const { check } = setup();
    const draft07 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', dependencies: { user: ['password'] } };
    expect(check(draft07, { user: 'me' })).toBe('invalid arguments for mcp__srv__tool: missing required argument "password"');
    const draft2020 = { type: 'object', dependentRequired: { user: ['password'] } };
    expect(check(draft2020, { user: 'me' })).toBe('invalid arguments for mcp__srv__tool: missing required argument "password"');
  });

  it('unescapes / and ~ in argument names', () => {
    const { check } = setup();
    const schema = { type: 'object', properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'string' }, '~1': { type: 'string' } } };
    expect(check(schema, { 'a/b': 1, 'c~d': 2, '~1': 3 })).toBe(
      'invalid arguments for mcp__srv__tool: "a/b": must be string; "c~d": must be string; "~1": must be string',
    );
  });
});
