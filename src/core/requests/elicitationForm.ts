import { fail, ok, type Result } from '../base/result';

/** One field of an elicitation form, as a host renders it. */
export type ElicitField = ElicitFieldBase &
  (
    | { readonly kind: 'string'; readonly format?: 'email' | 'uri' | 'date' | 'date-time'; readonly minLength?: number; readonly maxLength?: number; readonly default?: string }
    | { readonly kind: 'number'; readonly integer: boolean; readonly minimum?: number; readonly maximum?: number; readonly default?: number }
    | { readonly kind: 'boolean'; readonly default?: boolean }
    | { readonly kind: 'enum'; readonly options: readonly ElicitOption[]; readonly default?: string }
    | { readonly kind: 'multi'; readonly options: readonly ElicitOption[]; readonly minItems?: number; readonly maxItems?: number; readonly default?: readonly string[] }
  );

interface ElicitFieldBase {
  /** The property name the answer uses. */
  readonly name: string;
  /** What the form shows: the schema's title, else the name. */
  readonly label: string;
  readonly description?: string;
  readonly required: boolean;
}

export interface ElicitOption {
  readonly value: string;
  readonly title: string;
}

/** A form request, checked and ready to show: every field is one the host can render and check. */
export interface ElicitForm {
  readonly message: string;
  readonly fields: readonly ElicitField[];
}

export type ElicitValue = string | number | boolean | readonly string[];

const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);
const MAX_FIELDS = 100;

/**
 * Reads a server's `requestedSchema` (the flat object of primitive fields MCP allows) into a form.
 * Anything a host could not render or check is refused as a whole, naming the field and what is
 * wrong with it: a form is shown complete or not at all.
 */
export function parseElicitationForm(message: unknown, schema: unknown): Result<ElicitForm> {
  if (typeof message !== 'string') return fail('the elicitation has no message');
  if (!isRecord(schema) || schema.type !== 'object' || !isRecord(schema.properties)) return fail('requestedSchema must be an object schema with properties');
  const required = schema.required === undefined ? [] : schema.required;
  if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) return fail('requestedSchema.required must be a list of property names');
  const entries = Object.entries(schema.properties);
  if (entries.length > MAX_FIELDS) return fail(`requestedSchema has ${entries.length} properties; at most ${MAX_FIELDS} are shown`);
  const unknownRequired = required.find((r) => !Object.hasOwn(schema.properties as object, r));
  if (unknownRequired !== undefined) return fail(`requestedSchema.required names "${unknownRequired}", which is not a property`);
  const fields: ElicitField[] = [];
  for (const [name, property] of entries) {
    const field = parseField(name, property, required.includes(name));
    if (!field.ok) return fail(`requestedSchema.properties.${name}: ${field.error}`);
    fields.push(field.value);
  }
  return ok({ message, fields });
}

function parseField(name: string, p: unknown, required: boolean): Result<ElicitField> {
  if (!isRecord(p)) return fail('must be an object');
  if (p.title !== undefined && typeof p.title !== 'string') return fail('title must be a string');
  if (p.description !== undefined && typeof p.description !== 'string') return fail('description must be a string');
  const base: ElicitFieldBase = { name, label: (p.title as string | undefined) || name, ...(typeof p.description === 'string' ? { description: p.description } : {}), required };
  switch (p.type) {
    case 'boolean':
      if (p.default !== undefined && typeof p.default !== 'boolean') return fail('default must be a boolean');
      return ok({ ...base, kind: 'boolean', ...(p.default !== undefined ? { default: p.default as boolean } : {}) });
    case 'number':
    case 'integer':
      return parseNumber(base, p, p.type === 'integer');
    case 'string':
      return p.enum !== undefined || p.oneOf !== undefined ? parseEnum(base, p) : parseString(base, p);
    case 'array':
      return parseMulti(base, p);
    default:
      return fail(`type ${JSON.stringify(p.type)} cannot be shown (string, number, integer, boolean, or an array of choices)`);
  }
}

function parseString(base: ElicitFieldBase, p: Record<string, unknown>): Result<ElicitField> {
  if (p.format !== undefined && (typeof p.format !== 'string' || !FORMATS.has(p.format))) return fail(`format ${JSON.stringify(p.format)} is not one of email, uri, date, date-time`);
  const lengths = bounds(p, 'minLength', 'maxLength', true);
  if (!lengths.ok) return lengths;
  if (p.default !== undefined && typeof p.default !== 'string') return fail('default must be a string');
  return ok({ ...base, kind: 'string', ...(p.format ? { format: p.format as 'email' } : {}), ...lengths.value, ...(p.default !== undefined ? { default: p.default as string } : {}) });
}

function parseNumber(base: ElicitFieldBase, p: Record<string, unknown>, integer: boolean): Result<ElicitField> {
  const range = bounds(p, 'minimum', 'maximum', false);
  if (!range.ok) return range;
  if (p.default !== undefined && (typeof p.default !== 'number' || !Number.isFinite(p.default))) return fail('default must be a number');
  return ok({ ...base, kind: 'number', integer, ...range.value, ...(p.default !== undefined ? { default: p.default as number } : {}) });
}

function parseEnum(base: ElicitFieldBase, p: Record<string, unknown>): Result<ElicitField> {
  const options = readOptions(p.oneOf ?? p.enum, p.oneOf === undefined ? p.enumNames : undefined);
  if (!options.ok) return options;
  if (p.default !== undefined && !options.value.some((o) => o.value === p.default)) return fail('default is not one of the choices');
  return ok({ ...base, kind: 'enum', options: options.value, ...(p.default !== undefined ? { default: p.default as string } : {}) });
}

function parseMulti(base: ElicitFieldBase, p: Record<string, unknown>): Result<ElicitField> {
  const items = p.items;
  if (!isRecord(items)) return fail('an array must give its choices in items');
  const options = readOptions(items.anyOf ?? items.enum, undefined);
  if (!options.ok) return options;
  const counts = bounds(p, 'minItems', 'maxItems', true);
  if (!counts.ok) return counts;
  if (p.default !== undefined && (!Array.isArray(p.default) || !p.default.every((d) => options.value.some((o) => o.value === d)))) return fail('default must be a list of the choices');
  return ok({ ...base, kind: 'multi', options: options.value, ...counts.value, ...(p.default !== undefined ? { default: p.default as string[] } : {}) });
}

function readOptions(raw: unknown, names: unknown): Result<ElicitOption[]> {
  if (!Array.isArray(raw) || raw.length === 0) return fail('the choices must be a non-empty list');
  if (names !== undefined && (!Array.isArray(names) || names.length !== raw.length || !names.every((n) => typeof n === 'string'))) return fail('enumNames must name each choice');
  const options: ElicitOption[] = [];
  for (const [i, entry] of raw.entries()) {
    if (typeof entry === 'string') options.push({ value: entry, title: (names as string[] | undefined)?.[i] ?? entry });
    else if (isRecord(entry) && typeof entry.const === 'string') options.push({ value: entry.const, title: typeof entry.title === 'string' ? entry.title : entry.const });
    else return fail(`choice ${i + 1} is neither a string nor {const, title}`);
  }
  if (new Set(options.map((o) => o.value)).size !== options.length) return fail('two choices have the same value');
  return ok(options);
}

function bounds(p: Record<string, unknown>, low: string, high: string, whole: boolean): Result<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const key of [low, high]) {
    const value = p[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || (whole && (!Number.isInteger(value) || value < 0))) return fail(`${key} must be ${whole ? 'a whole number' : 'a number'}`);
    out[key] = value;
  }
  if (out[low] !== undefined && out[high] !== undefined && out[low] > out[high]) return fail(`${low} is above ${high}`);
  return ok(out);
}

/**
 * Checks the answers to a form: every required field given, each value of its field's kind and
 * within its bounds; fields not given are left out. Returns the values to send, or one message per
 * field at fault (keyed by field name), as the form shows them.
 */
export function validateElicitationValues(form: ElicitForm, values: Readonly<Record<string, unknown>>): Result<Record<string, ElicitValue>, Record<string, string>> {
  const errors: Record<string, string> = {};
  const content: Record<string, ElicitValue> = {};
  for (const field of form.fields) {
    const value = values[field.name];
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0 && field.kind === 'multi' && field.required)) {
      if (field.required) errors[field.name] = `${field.label} is required`;
      continue;
    }
    const problem = checkValue(field, value);
    if (problem) errors[field.name] = `${field.label} ${problem}`;
    else content[field.name] = value as ElicitValue;
  }
  return Object.keys(errors).length ? fail(errors) : ok(content);
}

function checkValue(field: ElicitField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be yes or no';
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.integer && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
      if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case 'enum':
      return typeof value === 'string' && field.options.some((o) => o.value === value) ? undefined : 'must be one of the choices';
    case 'multi': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && field.options.some((o) => o.value === v))) return 'must be among the choices';
      if (field.minItems !== undefined && value.length < field.minItems) return `needs at least ${field.minItems} choices`;
      if (field.maxItems !== undefined && value.length > field.maxItems) return `takes at most ${field.maxItems} choices`;
      return undefined;
    }
    case 'string':
      return typeof value === 'string' ? checkString(field, value) : 'must be text';
  }
}

function checkString(field: Extract<ElicitField, { kind: 'string' }>, value: string): string | undefined {
  const length = [...value].length;
  if (field.minLength !== undefined && length < field.minLength) return `needs at least ${field.minLength} characters`;
  if (field.maxLength !== undefined && length > field.maxLength) return `takes at most ${field.maxLength} characters`;
  switch (field.format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? undefined : 'must be an email address';
    case 'uri':
      // An absolute URL: the WHATWG parser needs a scheme (a letter, then letters, digits, + . -).
      return URL.canParse(value) ? undefined : 'must be a URI (e.g. https://example.com)';
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : 'must be a date (YYYY-MM-DD)';
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value)) ? undefined : 'must be a date and time (YYYY-MM-DDThh:mm)';
    default:
      return undefined;
  }
}

/**
 * A typed answer (a terminal, a text box) as the value of its field: numbers and yes/no parsed, a
 * choice taken by its value or its title, several choices separated by commas.
 */
export function parseFieldInput(field: ElicitField, text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  switch (field.kind) {
    case 'number':
      return Number(trimmed);
    case 'boolean':
      return /^(y|yes|true|1)$/i.test(trimmed) ? true : /^(n|no|false|0)$/i.test(trimmed) ? false : trimmed;
    case 'enum':
      return field.options.find((o) => o.value === trimmed || o.title.toLowerCase() === trimmed.toLowerCase())?.value ?? trimmed;
    case 'multi':
      return trimmed.split(',').map((part) => {
        const p = part.trim();
        return field.options.find((o) => o.value === p || o.title.toLowerCase() === p.toLowerCase())?.value ?? p;
      });
    default:
      return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
