import * as path from 'node:path';
import { isJsonObject, kindOf, McpServerEntryFields, validateServerEntry } from './configSchema';
import { formatConfigError } from './formatConfigError';
import type { JsonPathSegment } from './jsonPath';
import { childScope, McpParseScope, scopeError } from './parseScope';
import type { McpConfigError, McpConfigOrigin, McpServerDefinition, McpTransportKind } from './types';

/** One entry's definition (absent only for an unusable name) and its problems. */
export interface McpServerEntryResult {
  readonly definition?: McpServerDefinition;
  readonly errors: readonly McpConfigError[];
}

/** Transport names as written in the wild, lower-cased, to the kind they mean. */
const TRANSPORT_ALIASES = new Map<string, McpTransportKind>([
  ['stdio', 'stdio'],
  ['http', 'http'],
  ['streamable-http', 'http'],
  ['streamablehttp', 'http'],
  ['streamable_http', 'http'],
  ['sse', 'sse'],
]);

interface McpTransportResult {
  readonly type: McpTransportKind | undefined;
  readonly issue?: { readonly path: readonly JsonPathSegment[]; readonly message: string };
  /** The issue is an unknown `type` value: it becomes the problem as is. */
  readonly unsupported?: boolean;
}

/**
 * Validates one server entry of `scope` (which points at the server map). A bad entry is still
 * returned, with `problem` set, so the editor can list it in error; every problem is also
 * reported in `errors`.
 */
export function parseServerEntry(name: string, raw: unknown, scope: McpParseScope): McpServerEntryResult {
  if (name === '') {
    return { errors: [scopeError(scope, [name], 'server name must not be empty', { anchor: 'key' })] };
  }
  const entry = childScope(scope, name);
  const keyPosition = scope.locator?.keyPosition(entry.segments);
  const origin: McpConfigOrigin = { source: scope.source, file: scope.file, jsonPath: entry.path, ...keyPosition };
  const fail = (relative: readonly JsonPathSegment[], message: string, anchor: 'key' | 'value') =>
    scopeError(entry, relative, message, { server: name, anchor });

  if (!isJsonObject(raw)) {
    const error = fail([], `expected object, got ${kindOf(raw)}`, 'value');
    const problem = problemText(error, scope);
    return { definition: buildDefinition(name, {}, undefined, origin, scope, problem), errors: [error] };
  }
  const { value, issues } = validateServerEntry(raw);
  // Stryker disable next-line StringLiteral: any anchor but 'key' points at the value
  const errors = issues.map((issue) => fail(issue.path, issue.message, issue.anchor ?? 'value'));
  const transport = resolveTransport(raw, value ?? {});
  if (transport.issue) {
    const { path: issuePath, message } = transport.issue;
    errors.push(fail(issuePath, message, issuePath.length > 0 ? 'value' : 'key'));
  }
  const problem =
    transport.unsupported && transport.issue
      ? transport.issue.message
      : errors.length > 0
        ? problemText(errors[0], scope)
        : undefined;
  return { definition: buildDefinition(name, value ?? {}, transport.type, origin, scope, problem), errors };
}

/** Declared or inferred transport, and what is wrong with it. */
function resolveTransport(raw: Record<string, unknown>, fields: McpServerEntryFields): McpTransportResult {
  const hasCommand = raw.command !== undefined;
  const hasUrl = raw.url !== undefined;
  if (raw.type === undefined) {
    if (hasCommand || hasUrl) {
      return { type: hasCommand ? 'stdio' : 'http' };
    }
    return { type: undefined, issue: { path: [], message: 'needs "command" (stdio) or "url" (http/sse)' } };
  }
  if (fields.type === undefined) {
    // Stryker disable next-line ObjectLiteral: `{}` has no type either
    return { type: undefined }; // `type` is not a string; already reported.
  }
  const kind = TRANSPORT_ALIASES.get(fields.type.toLowerCase());
  if (!kind) {
    const message = `unsupported transport type ${JSON.stringify(fields.type)} (expected stdio, http or sse)`;
    return { type: undefined, unsupported: true, issue: { path: ['type'], message } };
  }
  if (kind === 'stdio' && !hasCommand) {
    return { type: kind, issue: { path: [], message: 'type "stdio" needs "command"' } };
  }
  if (kind !== 'stdio' && !hasUrl) {
    return { type: kind, issue: { path: [], message: `type "${kind}" needs "url"` } };
  }
  return { type: kind };
}

function buildDefinition(
  name: string,
  fields: McpServerEntryFields,
  type: McpTransportKind | undefined,
  origin: McpConfigOrigin,
  scope: McpParseScope,
  problem: string | undefined,
): McpServerDefinition {
  return {
    name,
    type,
    command: fields.command,
    args: fields.args ?? [],
    env: normalizeEnv(fields.env),
    envFile: fields.envFile,
    cwd: fields.cwd,
    url: fields.url,
    headers: fields.headers ?? {},
    disabled: fields.disabled ?? false,
    startupTimeoutMs: fields.startupTimeoutMs,
    toolTimeoutMs: fields.toolTimeoutMs,
    oauth: fields.oauth,
    ...(fields.sandbox === true ? { sandbox: {} } : fields.sandbox ? { sandbox: fields.sandbox } : {}),
    workspaceFolder: scope.workspaceFolder,
    inputs: scope.inputs,
    origin,
    problem,
  };
}

/** `env` as an object; the `["KEY=VALUE"]` form is split at the first `=`. */
function normalizeEnv(env: McpServerEntryFields['env']): Record<string, string> {
  if (!Array.isArray(env)) {
    return { ...env };
  }
  const result: Record<string, string> = {};
  for (const pair of env) {
    const at = pair.indexOf('=');
    result[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return result;
}

/** The first error, formatted relative to the folder the user knows the file by. */
function problemText(error: McpConfigError, scope: McpParseScope): string {
  const base = scope.workspaceFolder ?? (path.isAbsolute(scope.file) ? path.dirname(scope.file) : undefined);
  return formatConfigError(error, base);
}
