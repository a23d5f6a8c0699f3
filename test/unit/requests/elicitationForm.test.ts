import { describe, expect, it } from 'vitest';
import { parseElicitationForm, parseFieldInput, validateElicitationValues, type ElicitForm } from '../../../src/core/requests/elicitationForm';
import { ServerAskQueue, ServerAskRefused } from '../../../src/core/requests/ServerAskQueue';

const schema = {
  type: 'object',
  properties: {
    email: { type: 'string', format: 'email', title: 'Email address' },
    site: { type: 'string', format: 'uri' },
    born: { type: 'string', format: 'date' },
    name: { type: 'string', minLength: 2, maxLength: 5, default: 'Ann' },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    score: { type: 'number', minimum: 0.5 },
    agree: { type: 'boolean', default: false, description: 'Terms' },
    color: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }], default: 'g' },
    size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
    tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }, { const: 'b', title: 'B' }] }, minItems: 1, maxItems: 2 },
  },
  required: ['email', 'age', 'tags'],
};

function form(): ElicitForm {
  const parsed = parseElicitationForm('Tell us', schema);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

describe('parseElicitationForm', () => {
  it('reads every kind of field MCP allows, with titles, bounds, defaults and required', () => {
    const f = form();
    expect(f.message).toBe('Tell us');
    expect(f.fields.map((x) => [x.name, x.kind, x.label, x.required])).toEqual([
      ['email', 'string', 'Email address', true],
      ['site', 'string', 'site', false],
      ['born', 'string', 'born', false],
      ['name', 'string', 'name', false],
      ['age', 'number', 'age', true],
      ['score', 'number', 'score', false],
      ['agree', 'boolean', 'agree', false],
      ['color', 'enum', 'color', false],
      ['size', 'enum', 'size', false],
      ['tags', 'multi', 'tags', true],
    ]);
    expect(f.fields[3]).toMatchObject({ minLength: 2, maxLength: 5, default: 'Ann' });
    expect(f.fields[4]).toMatchObject({ integer: true, minimum: 0, maximum: 150 });
    expect(f.fields[6]).toMatchObject({ default: false, description: 'Terms' });
    expect(f.fields[7]).toMatchObject({ options: [{ value: 'r', title: 'Red' }, { value: 'g', title: 'Green' }], default: 'g' });
    expect(f.fields[8]).toMatchObject({ options: [{ value: 's', title: 'Small' }, { value: 'm', title: 'Medium' }] });
    expect(f.fields[9]).toMatchObject({ options: [{ value: 'a', title: 'A' }, { value: 'b', title: 'B' }], minItems: 1, maxItems: 2 });
  });

  it('refuses a malformed schema as a whole, naming the field and the fault', () => {
    const bad = (properties: unknown, extra: Record<string, unknown> = {}) => parseElicitationForm('m', { type: 'object', properties, ...extra });
    expect(parseElicitationForm(3, schema)).toEqual({ ok: false, error: 'the elicitation has no message' });
    expect(parseElicitationForm('m', { type: 'array' })).toEqual({ ok: false, error: 'requestedSchema must be an object schema with properties' });
    expect(bad({ a: { type: 'object' } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: type "object" cannot be shown (string, number, integer, boolean, or an array of choices)' });
    expect(bad({ a: { type: 'string', format: 'phone' } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: format "phone" is not one of email, uri, date, date-time' });
    expect(bad({ a: { type: 'string', minLength: 5, maxLength: 2 } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: minLength is above maxLength' });
    expect(bad({ a: { type: 'string', minLength: -1 } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: minLength must be a whole number' });
    expect(bad({ a: { type: 'number', default: 'x' } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: default must be a number' });
    expect(bad({ a: { type: 'string', enum: [] } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: the choices must be a non-empty list' });
    expect(bad({ a: { type: 'string', enum: ['x', 'x'] } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: two choices have the same value' });
    expect(bad({ a: { type: 'string', enum: ['x'], default: 'y' } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: default is not one of the choices' });
    expect(bad({ a: { type: 'string', enum: ['x'], enumNames: ['X', 'Y'] } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: enumNames must name each choice' });
    expect(bad({ a: { type: 'array' } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: an array must give its choices in items' });
    expect(bad({ a: { type: 'boolean', default: 'yes' } })).toEqual({ ok: false, error: 'requestedSchema.properties.a: default must be a boolean' });
    expect(bad({ a: 'string' })).toEqual({ ok: false, error: 'requestedSchema.properties.a: must be an object' });
    expect(bad({ a: { type: 'string' } }, { required: ['b'] })).toEqual({ ok: false, error: 'requestedSchema.required names "b", which is not a property' });
    expect(bad({ a: { type: 'string' } }, { required: 'a' })).toEqual({ ok: false, error: 'requestedSchema.required must be a list of property names' });
    expect(bad(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, { type: 'string' }])))).toEqual({ ok: false, error: 'requestedSchema has 101 properties; at most 100 are shown' });
  });
});

describe('validateElicitationValues', () => {
  it('passes what fits, leaving out what was not given', () => {
    expect(validateElicitationValues(form(), { email: 'a@b.co', age: 30, tags: ['a'], agree: true, color: 'r', born: '2000-01-31', site: 'https://x.y' })).toEqual({
      ok: true,
      value: { email: 'a@b.co', age: 30, tags: ['a'], agree: true, color: 'r', born: '2000-01-31', site: 'https://x.y' },
    });
  });

  it('says what is wrong with each field, as the form shows it', () => {
    const result = validateElicitationValues(form(), { email: 'nope', age: 3.5, tags: [], name: 'x', score: 0.1, agree: 'yes', color: 'blue', born: '31/01/2000', site: 'not a uri', size: 3 });
    expect(result).toEqual({
      ok: false,
      error: {
        email: 'Email address must be an email address',
        age: 'age must be a whole number',
        tags: 'tags is required',
        name: 'name needs at least 2 characters',
        score: 'score must be at least 0.5',
        agree: 'agree must be yes or no',
        color: 'color must be one of the choices',
        born: 'born must be a date (YYYY-MM-DD)',
        site: 'site must be a URI (e.g. https://example.com)',
        size: 'size must be one of the choices',
      },
    });
    expect(validateElicitationValues(form(), { email: 'a@b.co', age: 151, tags: ['a', 'b', 'c'] })).toMatchObject({ ok: false, error: { age: 'age must be at most 150', tags: 'tags must be among the choices' } });
    expect(validateElicitationValues(form(), { email: 'a@b.co', age: 1, tags: ['a', 'b'], name: 'toolong' })).toMatchObject({ ok: false, error: { name: 'name takes at most 5 characters' } });
  });
});

describe('parseFieldInput', () => {
  it('reads typed answers as their field\'s values', () => {
    const [email, , , , age, , agree, color, , tags] = form().fields;
    expect(parseFieldInput(age!, ' 42 ')).toBe(42);
    expect(parseFieldInput(agree!, 'Yes')).toBe(true);
    expect(parseFieldInput(agree!, 'no')).toBe(false);
    expect(parseFieldInput(color!, 'green')).toBe('g');
    expect(parseFieldInput(tags!, 'A, b')).toEqual(['a', 'b']);
    expect(parseFieldInput(email!, '  ')).toBeUndefined();
    expect(parseFieldInput(email!, 'a@b.co')).toBe('a@b.co');
  });
});

describe('ServerAskQueue', () => {
  it('asks at most a few questions of one server at once, refusing the rest with a reason, and frees room when one is answered', async () => {
    const queue = new ServerAskQueue({ maxPendingPerServer: 2 });
    const answers: Array<() => void> = [];
    const ask = () => new Promise<string>((resolve) => answers.push(() => resolve('answered')));
    const first = queue.run('flood', 'elicitation', ask);
    const second = queue.run('flood', 'elicitation', ask);
    await expect(queue.run('flood', 'elicitation', ask)).rejects.toMatchObject({ name: 'ServerAskRefused', server: 'flood', message: '"flood" already has 2 elicitation requests waiting for an answer; this one was refused (at most 2 at a time)' });
    // Another server is not held up by the first.
    const other = queue.run('calm', 'sampling', async () => 'fine');
    await expect(other).resolves.toBe('fine');
    expect(queue.pending('flood')).toBe(2);
    answers[1]!();
    await second;
    expect(queue.pending('flood')).toBe(1);
    const third = queue.run('flood', 'elicitation', async () => 'room again');
    await expect(third).resolves.toBe('room again');
    answers[0]!();
    await first;
    expect(queue.pending('flood')).toBe(0);
    await expect(queue.run('x', 'k', async () => Promise.reject(new Error('failed')))).rejects.toThrow('failed');
    expect(queue.pending('x')).toBe(0);
    expect(new ServerAskRefused('s', 'm')).toBeInstanceOf(Error);
  });
});
