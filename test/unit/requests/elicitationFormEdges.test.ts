import { describe, expect, it } from 'vitest';
import { parseElicitationForm, parseFieldInput, validateElicitationValues, type ElicitField, type ElicitForm } from '../../../src/core/requests/elicitationForm';

/** The form of one property, or the error that refuses it. */
function one(property: unknown, required = false): ElicitField | string {
  const parsed = parseElicitationForm('m', { type: 'object', properties: { a: property }, ...(required ? { required: ['a'] } : {}) });
  return parsed.ok ? parsed.value.fields[0]! : parsed.error.replace('requestedSchema.properties.a: ', '');
}

function formOf(properties: Record<string, unknown>, required: string[] = []): ElicitForm {
  const parsed = parseElicitationForm('m', { type: 'object', properties, required });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/** The message for one value of one field, or undefined when it passes. */
function check(property: unknown, value: unknown, required = false): string | undefined {
  const result = validateElicitationValues(formOf({ a: property }, required ? ['a'] : []), { a: value });
  return result.ok ? undefined : result.error.a;
}

describe('parseElicitationForm, each check on its own', () => {
  it('wants an object schema whose properties are an object', () => {
    const error = { ok: false, error: 'requestedSchema must be an object schema with properties' };
    expect(parseElicitationForm('m', null)).toEqual(error);
    expect(parseElicitationForm('m', [])).toEqual(error);
    expect(parseElicitationForm('m', { type: 'object' })).toEqual(error);
    expect(parseElicitationForm('m', { type: 'object', properties: [] })).toEqual(error);
    expect(parseElicitationForm('m', { properties: {} })).toEqual(error);
    expect(parseElicitationForm('m', { type: 'object', properties: {}, required: ['x', 1] })).toEqual({ ok: false, error: 'requestedSchema.required must be a list of property names' });
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, { type: 'string' }]));
    expect(formOf(hundred).fields).toHaveLength(100);
  });

  it('checks titles and descriptions, and gives a field only the keys it has', () => {
    expect(one({ type: 'string', title: 3 })).toBe('title must be a string');
    expect(one({ type: 'string', description: {} })).toBe('description must be a string');
    expect(one({ type: 'string', title: '' })).toStrictEqual({ name: 'a', label: 'a', required: false, kind: 'string' });
    expect(one({ type: 'boolean' }, true)).toStrictEqual({ name: 'a', label: 'a', required: true, kind: 'boolean' });
    expect(one({ type: 'number' })).toStrictEqual({ name: 'a', label: 'a', required: false, kind: 'number', integer: false });
    expect(one({ type: 'string', enum: ['x'] })).toStrictEqual({ name: 'a', label: 'a', required: false, kind: 'enum', options: [{ value: 'x', title: 'x' }] });
    expect(one({ type: 'array', items: { enum: ['x'] } })).toStrictEqual({ name: 'a', label: 'a', required: false, kind: 'multi', options: [{ value: 'x', title: 'x' }] });
  });

  it('checks a string field: its format, bounds and default', () => {
    expect(one({ type: 'string', format: 3 })).toBe('format 3 is not one of email, uri, date, date-time');
    expect(one({ type: 'string', default: 3 })).toBe('default must be a string');
    expect(one({ type: 'string', minLength: 1.5 })).toBe('minLength must be a whole number');
    expect(one({ type: 'string', minLength: 'x' })).toBe('minLength must be a whole number');
    expect(one({ type: 'string', minLength: Infinity })).toBe('minLength must be a whole number');
    expect(one({ type: 'string', minLength: 0, maxLength: 0 })).toMatchObject({ minLength: 0, maxLength: 0 });
    expect(one({ type: 'string', format: 'date-time', minLength: 3 })).toMatchObject({ format: 'date-time', minLength: 3 });
  });

  it('checks a number field: its bounds and default', () => {
    expect(one({ type: 'number', minimum: 'x' })).toBe('minimum must be a number');
    expect(one({ type: 'number', maximum: Number.NaN })).toBe('maximum must be a number');
    expect(one({ type: 'number', minimum: 2, maximum: 1 })).toBe('minimum is above maximum');
    expect(one({ type: 'number', minimum: -1.5, maximum: -1.5, default: -1.5 })).toMatchObject({ minimum: -1.5, maximum: -1.5, default: -1.5 });
    expect(one({ type: 'integer', maximum: 3 })).toMatchObject({ integer: true, maximum: 3 });
    expect(one({ type: 'number', default: Infinity })).toBe('default must be a number');
    expect(one({ type: 'number', default: '1' })).toBe('default must be a number');
  });

  it('checks choices: their form, their names, and a default among them', () => {
    expect(one({ type: 'string', enum: ['x', 5] })).toBe('choice 2 is neither a string nor {const, title}');
    expect(one({ type: 'string', oneOf: [{ const: 1 }] })).toBe('choice 1 is neither a string nor {const, title}');
    expect(one({ type: 'string', enum: 'x' })).toBe('the choices must be a non-empty list');
    expect(one({ type: 'string', enum: ['x', 'y'], enumNames: ['X', 1] })).toBe('enumNames must name each choice');
    expect(one({ type: 'string', enum: ['x'], enumNames: 'X' })).toBe('enumNames must name each choice');
    // enumNames belong to enum: with oneOf they are not read.
    expect(one({ type: 'string', oneOf: [{ const: 'x' }], enumNames: ['X', 'Y'] })).toMatchObject({ options: [{ value: 'x', title: 'x' }] });
    expect(one({ type: 'string', oneOf: [{ const: 'x', title: 7 }], default: 'x' })).toMatchObject({ options: [{ value: 'x', title: 'x' }], default: 'x' });
  });

  it('checks a list of choices: its items, counts and default', () => {
    expect(one({ type: 'array', items: { enum: [] } })).toBe('the choices must be a non-empty list');
    expect(one({ type: 'array', items: { enum: ['x'] }, minItems: 0.5 })).toBe('minItems must be a whole number');
    expect(one({ type: 'array', items: { enum: ['x'] }, maxItems: -1 })).toBe('maxItems must be a whole number');
    expect(one({ type: 'array', items: { enum: ['x'] }, default: 'x' })).toBe('default must be a list of the choices');
    expect(one({ type: 'array', items: { enum: ['x'] }, default: ['x', 'y'] })).toBe('default must be a list of the choices');
    expect(one({ type: 'array', items: { enum: ['x', 'y'] }, default: ['y'] })).toMatchObject({ default: ['y'] });
  });
});

describe('validateElicitationValues, each check on its own', () => {
  it('treats an empty text as not given, and an empty list as not given only for a required list', () => {
    expect(check({ type: 'string', minLength: 2 }, '')).toBeUndefined();
    expect(check({ type: 'string' }, '', true)).toBe('a is required');
    expect(check({ type: 'array', items: { enum: ['x'] }, minItems: 1 }, [])).toBe('a needs at least 1 choices');
    expect(check({ type: 'array', items: { enum: ['x'] } }, [], true)).toBe('a is required');
    expect(validateElicitationValues(formOf({ a: { type: 'string' } }), { a: '' })).toEqual({ ok: true, value: {} });
  });

  it('checks numbers against their bounds, inclusive', () => {
    const bounded = { type: 'number', minimum: 1, maximum: 3 };
    expect(check(bounded, '2')).toBe('a must be a number');
    expect(check(bounded, Number.NaN)).toBe('a must be a number');
    expect(check(bounded, Infinity)).toBe('a must be a number');
    expect(check(bounded, 1)).toBeUndefined();
    expect(check(bounded, 3)).toBeUndefined();
    expect(check(bounded, 0.5)).toBe('a must be at least 1');
    expect(check(bounded, 3.5)).toBe('a must be at most 3');
    expect(check({ type: 'number' }, -1e9)).toBeUndefined();
  });

  it('checks choices and lists of choices, and their counts, inclusive', () => {
    expect(check({ type: 'string', enum: ['x'] }, 1)).toBe('a must be one of the choices');
    const list = { type: 'array', items: { enum: ['x', 'y', 'z'] }, minItems: 2, maxItems: 2 };
    expect(check(list, 'x')).toBe('a must be among the choices');
    expect(check(list, ['x', 1])).toBe('a must be among the choices');
    expect(check(list, ['x'])).toBe('a needs at least 2 choices');
    expect(check(list, ['x', 'y'])).toBeUndefined();
    expect(check(list, ['x', 'y', 'z'])).toBe('a takes at most 2 choices');
    expect(check({ type: 'array', items: { enum: ['x', 'y', 'z'] } }, ['x', 'y', 'z'])).toBeUndefined();
  });

  it('checks text: its kind, its length in characters, inclusive, and its format', () => {
    expect(check({ type: 'string' }, 5)).toBe('a must be text');
    const sized = { type: 'string', minLength: 2, maxLength: 3 };
    expect(check(sized, 'ab')).toBeUndefined();
    expect(check(sized, 'abc')).toBeUndefined();
    expect(check(sized, 'éé')).toBeUndefined();
    expect(check(sized, 'abcd')).toBe('a takes at most 3 characters');
    expect(check({ type: 'string', maxLength: 1 }, 'ab')).toBe('a takes at most 1 characters');
    const email = { type: 'string', format: 'email' };
    for (const good of ['ab@cd.ef', 'a@b.co']) expect(check(email, good)).toBeUndefined();
    for (const bad of [' a@b.co', 'a@b.co ', 'a@b', '@b.co', 'a@.co', 'a@b.']) expect(check(email, bad)).toBe('a must be an email address');
    const uri = { type: 'string', format: 'uri' };
    for (const good of ['https://example.com', 'mailto:a@b.co', 'urn:x']) expect(check(uri, good)).toBeUndefined();
    for (const bad of ['http://exa mple.com', '/relative', '1a:b']) expect(check(uri, bad)).toBe('a must be a URI (e.g. https://example.com)');
    const date = { type: 'string', format: 'date' };
    expect(check(date, '2000-01-31')).toBeUndefined();
    for (const bad of ['2000-13-45', 'x2000-01-31', '2000-01-31x', '20000-01-31', '2000-1-31']) expect(check(date, bad)).toBe('a must be a date (YYYY-MM-DD)');
    const dateTime = { type: 'string', format: 'date-time' };
    for (const good of ['2000-01-31T10:00', '2000-01-31T10:00:00Z']) expect(check(dateTime, good)).toBeUndefined();
    for (const bad of ['2000-01-31', 'x2000-01-31T10:00', '2000-01-31T99:99', '200a-01-31T10:00', '2000-0a-31T10:00', '2000-01-3aT10:00', '2000-01-31T1a:00', '2000-01-31T10:0a', '2000-1-31T10:00', '2000-01-1T10:00', '2000-01-31T1:00', '2000-01-31T10:0']) {
      expect(check(dateTime, bad)).toBe('a must be a date and time (YYYY-MM-DDThh:mm)');
    }
    expect(check({ type: 'string' }, 'anything at all')).toBeUndefined();
  });
});

describe('parseFieldInput, each kind', () => {
  const field = (property: unknown) => one(property) as ElicitField;

  it('reads yes and no as whole words only', () => {
    const yesNo = field({ type: 'boolean' });
    for (const yes of ['y', 'YES', 'true', '1']) expect(parseFieldInput(yesNo, yes)).toBe(true);
    for (const no of ['n', 'No', 'FALSE', '0']) expect(parseFieldInput(yesNo, no)).toBe(false);
    for (const other of ['yesterday', 'maybe yes', 'nope', 'a0', '10']) expect(parseFieldInput(yesNo, other)).toBe(other);
  });

  it('takes a choice by its value or its title, and keeps an unknown one as typed', () => {
    const choice = field({ type: 'string', oneOf: [{ const: 'r', title: 'Red' }, { const: 'g', title: 'Green' }] });
    expect(parseFieldInput(choice, 'r')).toBe('r');
    expect(parseFieldInput(choice, 'GREEN')).toBe('g');
    expect(parseFieldInput(choice, 'blue')).toBe('blue');
    const list = field({ type: 'array', items: { anyOf: [{ const: 'a', title: 'Alpha' }] } });
    expect(parseFieldInput(list, 'a, alpha,x')).toEqual(['a', 'a', 'x']);
  });

  it('keeps text as typed, spaces and all', () => {
    expect(parseFieldInput(field({ type: 'string' }), ' hi ')).toBe(' hi ');
    expect(parseFieldInput(field({ type: 'number' }), '1e3')).toBe(1000);
  });
});
