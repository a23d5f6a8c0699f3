import Ajv07, { ErrorObject, ValidateFunction } from 'ajv';
import type AjvCore from 'ajv/dist/core';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ILogger, nullLogger } from './ILogger';
import { errorMessage } from '../base/errors';

/** The tool whose arguments are checked, as messages name it. */
export interface ValidationSubject {
  /** The name the model called; error messages start with it. */
  readonly exposedName: string;
  /** How a warning names the tool, e.g. `tool "read" of server "fs"`. */
  readonly origin: string;
}

type Draft = 'draft-07' | '2019-09' | '2020-12';
type CompiledSchema = { readonly ok: true; readonly validate: ValidateFunction } | { readonly ok: false };

const MAX_REPORTED_ERRORS = 10;

/**
 * Checks a tool call's arguments against the tool's input schema (JSON Schema draft-07, 2019-09
 * or 2020-12, chosen by `$schema`; 2020-12 when absent).
 *
 * Schemas are compiled on first use and cached per schema object, so thousands of listed tools
 * cost nothing until called. A schema that cannot be compiled is reported once through the
 * logger, and calls to its tool then go through unchecked: the server remains the judge.
 */
export class ArgumentValidator {
  private readonly _compiled = new WeakMap<object, CompiledSchema>();
  private readonly _ajv = new Map<Draft, AjvCore>();

  constructor(private readonly _logger: ILogger = nullLogger) {}

  /**
   * Validates `args` (`undefined` counts as `{}`) against `schema`.
   * @returns `undefined` when the arguments are acceptable, else a message naming each bad argument.
   */
  validate(subject: ValidationSubject, schema: Readonly<Record<string, unknown>>, args: unknown): string | undefined {
    const compiled = this._compile(subject, schema);
    if (!compiled.ok) return undefined;
    const data = args === undefined ? {} : args;
    if (compiled.validate(data)) return undefined;
    // Stryker disable next-line ArrayDeclaration: ajv sets errors whenever validation fails
    return `invalid arguments for ${subject.exposedName}: ${describeErrors(compiled.validate.errors ?? [], data)}`;
  }

  private _compile(subject: ValidationSubject, schema: Readonly<Record<string, unknown>>): CompiledSchema {
    let compiled = this._compiled.get(schema);
    if (!compiled) {
      compiled = this._tryCompile(subject, schema);
      this._compiled.set(schema, compiled);
    }
    return compiled;
  }

  private _tryCompile(subject: ValidationSubject, schema: Readonly<Record<string, unknown>>): CompiledSchema {
    const ajv = this._ajvFor(draftOf(schema.$schema));
    // `$schema` has done its job once the draft is picked; left in, ajv would refuse one it has no
    // meta-schema for (draft-04, a typo) instead of checking against the closest draft.
    // Stryker disable next-line ConditionalExpression: a copy without `$schema` of a schema without one compiles the same
    const target = schema.$schema === undefined ? schema : withoutMetaSchema(schema);
    // Stryker disable ObjectLiteral,BlockStatement: guards ajv's shared registry;
    // ajv 8 with `addUsedSchema: false` resolves each compile's ids locally in every case tried, so
    // no test can tell, but the registry still grows by each nested `$id` without it.
    const refs = { ...ajv.refs };
    const schemas = { ...ajv.schemas };
    try {
      return { ok: true, validate: ajv.compile(target) };
    } catch (err) {
      const reason = errorMessage(err);
      this._logger.warn(`${subject.origin}: input schema cannot be compiled, so arguments are not validated: ${reason}`);
      // Stryker disable next-line ObjectLiteral: `{}` is as falsy an `ok` as `false`
      return { ok: false };
    } finally {
      // Every tool's schema stands alone: forget the ids it registered, so that another tool may
      // use the same `$id` for something else and no `$ref` resolves across tools.
      ajv.removeSchema(target);
      restore(ajv.refs, refs);
      restore(ajv.schemas, schemas);
    }
    // Stryker restore ObjectLiteral,BlockStatement
  }

  private _ajvFor(draft: Draft): AjvCore {
    let ajv = this._ajv.get(draft);
    // Stryker disable next-line ConditionalExpression: a fresh instance per schema only costs time
    if (!ajv) {
      ajv = createAjv(draft);
      this._ajv.set(draft, ajv);
    }
    return ajv;
  }
}

function createAjv(draft: Draft): AjvCore {
  // `addUsedSchema: false`: compiled schemas are not registered by `$id`; `logger: false`: an
  // unknown format or keyword in a server's schema is ignored quietly rather than on the console.
  const options = { strict: false, allErrors: true, addUsedSchema: false, logger: false } as const;
  const ajv: AjvCore =
    draft === 'draft-07' ? new Ajv07(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv2020(options);
  addFormats(ajv);
  return ajv;
}

/**
 * The draft a `$schema` names: draft-04 to draft-07 are checked as draft-07 (what differs between
 * them is rare in tool schemas), 2019-09 as itself, and anything else, or no `$schema`, as 2020-12.
 */
function draftOf(metaSchema: unknown): Draft {
  // Stryker disable next-line StringLiteral: an unknown name also gets the 2020-12 instance
  if (typeof metaSchema !== 'string') return '2020-12';
  if (/draft-0[4-7]\b/.test(metaSchema)) return 'draft-07';
  return metaSchema.includes('2019-09') ? '2019-09' : '2020-12';
}

function withoutMetaSchema(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy = { ...schema };
  delete copy.$schema;
  return copy;
}

function restore<T>(current: Record<string, T | undefined>, saved: Record<string, T | undefined>): void {
  // Stryker disable next-line BooleanLiteral,ConditionalExpression: part of the registry guard above
  for (const key of Object.keys(current)) if (!(key in saved)) delete current[key];
  for (const [key, value] of Object.entries(saved)) current[key] = value;
}

/**
 * Joins ajv's errors into one line, each naming the argument it is about: wrong values first,
 * then missing arguments, then unexpected ones.
 */
function describeErrors(errors: readonly ErrorObject[], data: unknown): string {
  const described = errors.map((error) => describeError(error, data));
  const messages = [...new Set(described.sort((a, b) => a.rank - b.rank).map((d) => d.text))];
  const shown = messages.slice(0, MAX_REPORTED_ERRORS);
  if (messages.length > shown.length) shown.push(`and ${messages.length - shown.length} more`);
  return shown.join('; ');
}

function describeError(error: ErrorObject, data: unknown): { readonly rank: number; readonly text: string } {
  const path = argumentPath(error.instancePath, data);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
    case 'dependencies':
    case 'dependentRequired':
      return { rank: 1, text: `missing required argument "${joinPath(path, String(params.missingProperty))}"` };
    case 'additionalProperties':
      return { rank: 2, text: `unexpected argument "${joinPath(path, String(params.additionalProperty))}"` };
    case 'unevaluatedProperties':
      return { rank: 2, text: `unexpected argument "${joinPath(path, String(params.unevaluatedProperty))}"` };
  }
  const message =
    // Stryker disable next-line ConditionalExpression,LogicalOperator: only enum errors carry allowedValues
    error.keyword === 'enum' && Array.isArray(params.allowedValues)
      ? `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      : // Stryker disable next-line StringLiteral: ajv gives every error a message
        (error.message ?? `must satisfy "${error.keyword}"`);
  return { rank: 0, text: path ? `"${path}": ${message}` : `arguments ${message}` };
}

/**
 * Turns a JSON pointer into the instance (`/items/0/name`) into `items[0].name`, walking the data
 * so that only real array indexes get brackets.
 */
function argumentPath(pointer: string, data: unknown): string {
  if (!pointer) return '';
  let path = '';
  let node = data;
  for (const segment of pointer.slice(1).split('/')) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    path = Array.isArray(node) ? `${path}[${key}]` : joinPath(path, key);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: a pointer only goes on below an object or array
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  return path;
}

function joinPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
