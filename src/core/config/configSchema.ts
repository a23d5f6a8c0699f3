import { z } from 'zod';
import type { JsonPathSegment } from './jsonPath';

/** A validation problem relative to the validated value. */
export interface McpSchemaIssue {
  readonly path: readonly JsonPathSegment[];
  readonly message: string;
  /** The property key is at fault rather than its value. */
  readonly anchor?: 'key';
}

/**
 * Keys that name JavaScript object machinery. Copying them into an object drops them (`__proto__`
 * sets the prototype instead) or shadows a built-in, so an entry using them would silently not
 * get the variable or header it asks for.
 */
const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

function reservedKeyMessage(key: string): string {
  return `${JSON.stringify(key)} is a reserved name and cannot be used as a key`;
}

/** The kind of a JSON value as users think of it: `array` and `null` are not `object`. */
export function kindOf(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  return Array.isArray(value) ? 'array' : typeof value;
}

/** True for a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** zod's names for expected types that users know by another. */
const EXPECTED_NAMES: Record<string, string> = { record: 'object' };

/** Zod's per-parse error map: messages in the `expected string, got number` style. */
function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  // Stryker disable next-line ConditionalExpression,BlockStatement: every other issue these schemas raise has its own message
  if (issue.code !== 'invalid_type') {
    return undefined;
  }
  const expected = EXPECTED_NAMES[issue.expected] ?? issue.expected;
  if (issue.input === undefined) {
    return `missing (expected ${expected})`;
  }
  return `expected ${expected}, got ${kindOf(issue.input)}`;
}

const positiveInteger = z.number().check((ctx) => {
  if (!Number.isSafeInteger(ctx.value) || ctx.value <= 0) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: `expected positive integer, got ${ctx.value}` });
  }
});

const stringMap = z.record(z.string(), z.string());

const envArray = z.array(
  z.string().check((ctx) => {
    if (ctx.value.indexOf('=') <= 0) {
      // The value may hold a secret, so it is not echoed.
      ctx.issues.push({ code: 'custom', input: ctx.value, message: 'expected "KEY=VALUE"' });
    }
  }),
);

const envMap = z.record(z.string(), z.string(), {
  error: (issue) =>
    issue.code === 'invalid_type'
      ? `expected object or array of "KEY=VALUE" strings, got ${kindOf(issue.input)}`
      : undefined,
});

const serverFields = {
  type: z.string().optional(),
  command: z.string().optional(),
  args: z.array(z.string()).optional(),
  envFile: z.string().optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  headers: stringMap.optional(),
  disabled: z.boolean().optional(),
  startupTimeoutMs: positiveInteger.optional(),
  toolTimeoutMs: positiveInteger.optional(),
  oauth: z
    .strictObject({
      clientId: z.string().min(1, { error: 'must not be empty' }),
      clientSecret: z.string().optional(),
      scopes: z.array(z.string()).optional(),
      grant: z
        .enum(['authorization_code', 'client_credentials', 'jwt_bearer', 'enterprise_managed'], {
          error: (issue) => `expected "authorization_code", "client_credentials", "jwt_bearer" or "enterprise_managed", got ${JSON.stringify(issue.input)}`,
        })
        .optional(),
      idp: z
        .strictObject({
          issuer: z.string().min(1, { error: 'must not be empty' }),
          tokenEndpoint: z.string().min(1, { error: 'must not be empty' }).optional(),
          clientId: z.string().min(1, { error: 'must not be empty' }),
          clientSecret: z.string().optional(),
          idToken: z.string(),
        })
        .optional(),
      assertion: z.string().optional(),
      dpop: z.boolean().optional(),
      privateKey: z.string().optional(),
      signingAlgorithm: z.string().min(1, { error: 'must not be empty' }).optional(),
      issuer: z.string().min(1, { error: 'must not be empty' }).optional(),
    })
    .optional(),
  sandbox: z
    .union([
      z.boolean(),
      z.strictObject({
        filesystem: z.strictObject({ allowWrite: z.array(z.string()).optional(), denyRead: z.array(z.string()).optional() }).optional(),
        network: z.strictObject({ allowedDomains: z.array(z.string()).optional() }).optional(),
      }),
    ], {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? `expected true or {"filesystem": {"allowWrite": [...], "denyRead": [...]}, "network": {"allowedDomains": [...]}}, got ${kindOf(issue.input)}`
          : undefined,
    })
    .optional(),
};

/** A server entry with `env` as an object. Unknown keys are kept and ignored. */
const serverEntryWithEnvMap = z.looseObject({ ...serverFields, env: envMap.optional() });
/** A server entry with `env` as `KEY=VALUE` strings (the form some READMEs use). */
const serverEntryWithEnvArray = z.looseObject({ ...serverFields, env: envArray.optional() });

/** The fields of a server entry that passed validation. */
export type McpServerEntryFields = z.infer<typeof serverEntryWithEnvMap> | z.infer<typeof serverEntryWithEnvArray>;

/** `pickString` options: plain strings, or `{ "label": ..., "value": ... }` objects as VS Code allows. */
const optionValue = z.union([z.string(), z.looseObject({ value: z.string() }).transform((o) => o.value)], {
  error: (issue) =>
    issue.code === 'invalid_union' ? `expected string or {"value": string}, got ${kindOf(issue.input)}` : undefined,
});

/** One VS Code style `inputs` entry. */
const inputEntry = z.looseObject({
  id: z.string().min(1, { error: 'must not be empty' }),
  type: z.string(),
  description: z.string().optional(),
  password: z.boolean().optional(),
  default: z.string().optional(),
  options: z.array(optionValue).optional(),
});

/** A validated `inputs` entry. */
export type McpInputEntryFields = z.infer<typeof inputEntry>;

/** Result of validating one value: what survived, plus every problem found. */
export interface McpValidation<T> {
  /** The value with every invalid top-level field dropped; undefined when the value itself is unusable. */
  readonly value: T | undefined;
  readonly issues: readonly McpSchemaIssue[];
}

/**
 * Reserved keys in the maps `fields` of `raw` (objects, or `KEY=VALUE` arrays), which the schema
 * cannot see: zod skips `__proto__` when it copies a record.
 */
function reservedKeyIssues(raw: Record<string, unknown>, fields: readonly string[]): McpSchemaIssue[] {
  const issues: McpSchemaIssue[] = [];
  for (const field of fields) {
    const value = raw[field];
    if (Array.isArray(value)) {
      value.forEach((item: unknown, index) => {
        // Items without `=` are reported by the schema.
        // Stryker disable next-line StringLiteral: no reserved name for a non-string either way
        const key = typeof item === 'string' ? item.split('=', 1)[0] : '';
        if (RESERVED_KEYS.has(key) && item !== key) {
          issues.push({ path: [field, index], message: reservedKeyMessage(key) });
        }
      });
    } else if (isJsonObject(value)) {
      for (const key of Object.keys(value).filter((k) => RESERVED_KEYS.has(k))) {
        issues.push({ path: [field, key], message: reservedKeyMessage(key), anchor: 'key' });
      }
    }
  }
  return issues;
}

function validate<T>(
  schema: z.ZodType<T>,
  raw: Record<string, unknown>,
  extraIssues: readonly McpSchemaIssue[] = [],
): McpValidation<T> {
  const first = schema.safeParse(raw, { error: describeIssue });
  // Stryker disable next-line ConditionalExpression,BlockStatement: the general path gives the same result, only slower
  if (first.success && extraIssues.length === 0) {
    return { value: first.data, issues: [] };
  }
  const schemaIssues = first.success
    ? []
    : first.error.issues.map((i) => ({ path: i.path as JsonPathSegment[], message: i.message }));
  const issues = [...schemaIssues, ...extraIssues];
  // Drop the fields that failed so the rest of the entry can still be shown and checked.
  const badFields = new Set(issues.map((i) => i.path[0]));
  const kept = Object.fromEntries(Object.entries(raw).filter(([key]) => !badFields.has(key)));
  // Stryker disable next-line ObjectLiteral: only the value of this parse is used, not its messages
  const second = schema.safeParse(kept, { error: describeIssue });
  return { value: second.success ? second.data : undefined, issues };
}

/** Validates the fields of one server entry (an object). */
export function validateServerEntry(raw: Record<string, unknown>): McpValidation<McpServerEntryFields> {
  const schema = Array.isArray(raw.env) ? serverEntryWithEnvArray : serverEntryWithEnvMap;
  return validate<McpServerEntryFields>(schema, raw, [...reservedKeyIssues(raw, ['env', 'headers']), ...machineIdentityIssues(raw.oauth)]);
}

/** A value that is one variable the user supplies at start: `${input:id}` or `${env:NAME}`. */
const SECRET_REFERENCE = /^\$\{(?:input|env):[^}]+\}$/;

/**
 * What the schema cannot say about `oauth`: a machine identity (`grant: "client_credentials"`)
 * needs exactly one of `clientSecret` and `privateKey`, each given as `${input:...}` or
 * `${env:...}` so the secret itself is never written into settings; `privateKey`,
 * `signingAlgorithm` and `issuer` belong to that grant only.
 */
function machineIdentityIssues(oauth: unknown): McpSchemaIssue[] {
  if (!isJsonObject(oauth)) return [];
  const issues: McpSchemaIssue[] = [];
  const at = (field: string, message: string) => issues.push({ path: ['oauth', field], message });
  const onlyWith = (fields: readonly string[], grant: string) => {
    for (const field of fields) if (oauth[field] !== undefined) at(field, `only used with "grant": "${grant}"`);
  };
  const mustBeReference = (fields: readonly string[]) => {
    for (const field of fields) {
      const value = oauth[field];
      if (typeof value === 'string' && !SECRET_REFERENCE.test(value)) at(field, 'must be "${input:ID}" or "${env:NAME}": a machine identity\'s secret is never written into settings');
    }
  };
  if (oauth.grant === 'enterprise_managed') {
    if (oauth.clientSecret === undefined) issues.push({ path: ['oauth'], message: 'enterprise_managed needs "clientSecret" (the client at the MCP server\'s authorization server)' });
    if (oauth.idp === undefined) issues.push({ path: ['oauth'], message: 'enterprise_managed needs "idp": {"issuer", "clientId", "idToken"}' });
    mustBeReference(['clientSecret']);
    if (isJsonObject(oauth.idp)) {
      for (const field of ['idToken', 'clientSecret']) {
        const value = oauth.idp[field];
        if (typeof value === 'string' && !SECRET_REFERENCE.test(value)) issues.push({ path: ['oauth', 'idp', field], message: 'must be "${input:ID}" or "${env:NAME}": it is never written into settings' });
      }
    }
    onlyWith(['privateKey', 'signingAlgorithm', 'assertion'], 'client_credentials or jwt_bearer');
    return issues;
  }
  if (oauth.idp !== undefined) at('idp', 'only used with "grant": "enterprise_managed"');
  if (oauth.grant === 'jwt_bearer') {
    if (oauth.assertion === undefined) issues.push({ path: ['oauth'], message: 'jwt_bearer needs "assertion": the workload\'s JWT, as "${env:NAME}" or "${input:ID}"' });
    mustBeReference(['assertion']);
    onlyWith(['clientSecret', 'privateKey', 'signingAlgorithm'], 'client_credentials');
    return issues;
  }
  if (oauth.grant !== 'client_credentials') {
    if (oauth.dpop !== undefined) at('dpop', 'only used with "grant": "client_credentials" or "jwt_bearer"');
    onlyWith(['privateKey', 'signingAlgorithm', 'issuer'], 'client_credentials');
    onlyWith(['assertion'], 'jwt_bearer');
    return issues;
  }
  onlyWith(['assertion'], 'jwt_bearer');
  const secret = oauth.clientSecret !== undefined;
  const key = oauth.privateKey !== undefined;
  if (secret === key) {
    issues.push({ path: ['oauth'], message: 'client_credentials needs exactly one of "clientSecret" (client_secret_basic) and "privateKey" (a signed JWT, private_key_jwt)' });
  }
  mustBeReference(['clientSecret', 'privateKey']);
  if (oauth.signingAlgorithm !== undefined && !key) at('signingAlgorithm', 'only used with "privateKey"');
  return issues;
}

/** Validates one `inputs` entry (an object). */
export function validateInputEntry(raw: Record<string, unknown>): McpValidation<McpInputEntryFields> {
  return validate(inputEntry, raw);
}
