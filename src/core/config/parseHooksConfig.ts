import { getNodeValue, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { errorMessage } from '../base/errors';
import { isJsonObject, kindOf } from './configSchema';
import { DEFAULT_HOOK_TIMEOUT_SEC, HOOK_EVENTS, type HookDefinition, type HookEventName, type HookOrigin, type HookSource } from './hookTypes';
import { JsonLocator } from './JsonLocator';
import { formatJsonPath, type JsonPathSegment } from './jsonPath';
import type { McpConfigError } from './types';

export interface HooksParseResult {
  readonly hooks: readonly HookDefinition[];
  readonly errors: readonly McpConfigError[];
}

/** Where a hooks value came from, and how strictly to read it. */
export interface HooksParseContext {
  readonly source: HookSource;
  /** Absolute file, or the host's label (`settings.json`). */
  readonly file: string;
  /** Path of the value inside `file` (`mcpHarness.hooks` for a setting); empty for a whole file. */
  readonly basePath?: readonly JsonPathSegment[];
  readonly workspaceFolder?: string;
  /** Positions of values, when the text is known. */
  readonly locator?: JsonLocator;
}

/** Fields of a command hook that Claude Code knows and that change nothing here. */
const IGNORED_FIELDS: ReadonlySet<string> = new Set(['statusMessage']);

/**
 * Reads a hooks file's text (`.harness/hooks.json`, `.claude/settings.json`): its `"hooks"` member
 * in Claude Code's format. A syntax error is reported for the file and gives no hooks; a bad entry
 * is reported with its JSON path and position, and the other entries still count.
 */
export function parseHooksConfigText(text: string, context: Omit<HooksParseContext, 'locator' | 'basePath'>): HooksParseResult {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') return { hooks: [], errors: [{ file: context.file, message: 'the file is empty' }] };
  const syntax: ParseError[] = [];
  const root = parseTree(text, syntax, { allowTrailingComma: true, disallowComments: false });
  const locator = new JsonLocator(text, root);
  const first = syntax[0];
  if (first) return { hooks: [], errors: [{ file: context.file, ...locator.positionAt(first.offset), message: `invalid JSON: ${printParseErrorCode(first.error)}` }] };
  // Text without a syntax error holds a value.
  const document: unknown = getNodeValue(root!);
  if (!isJsonObject(document)) return { hooks: [], errors: [{ file: context.file, message: `expected an object with "hooks", got ${kindOf(document)}` }] };
  const errors: McpConfigError[] = [];
  if (context.source !== 'claude') {
    // Our own file holds hooks only; a Claude Code settings file holds much else, which is not ours to judge.
    for (const key of Object.keys(document)) {
      if (key !== 'hooks') errors.push(issue({ ...context, locator }, [key], 'unknown field (expected "hooks")'));
    }
  }
  // No "hooks" member reads as no hooks.
  const parsed = parseHooksValue(document.hooks, { ...context, locator, basePath: ['hooks'] });
  return { hooks: parsed.hooks, errors: [...errors, ...parsed.errors] };
}

/**
 * Reads a map of events to matcher groups (`{ "PreToolUse": [ { "matcher": "...", "hooks": [...] } ] }`),
 * as a setting holds it; `{ "hooks": { ... } }` (a Claude Code settings file's shape) is accepted too.
 */
export function parseHooksValue(value: unknown, context: HooksParseContext): HooksParseResult {
  const base = context.basePath ?? [];
  if (isJsonObject(value) && Object.keys(value).length === 1 && isJsonObject(value.hooks)) {
    return parseHooksValue(value.hooks, { ...context, basePath: [...base, 'hooks'] });
  }
  if (value === undefined || value === null) return { hooks: [], errors: [] };
  if (!isJsonObject(value)) return { hooks: [], errors: [issue(context, [], `expected an object of events (${HOOK_EVENTS.join(', ')}), got ${kindOf(value)}`)] };
  const hooks: HookDefinition[] = [];
  const errors: McpConfigError[] = [];
  for (const [event, groups] of Object.entries(value)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      // Claude Code has more events (Stop, Notification, ...): its files may list them; ours may not.
      if (context.source !== 'claude') errors.push(issue(context, [event], `unknown hook event (expected ${HOOK_EVENTS.join(', ')})`, 'key'));
      continue;
    }
    if (!Array.isArray(groups)) {
      errors.push(issue(context, [event], `expected an array of { "matcher", "hooks" } groups, got ${kindOf(groups)}`));
      continue;
    }
    groups.forEach((group, g) => parseGroup(event as HookEventName, group, [event, g], context, hooks, errors));
  }
  return { hooks, errors };
}

function parseGroup(event: HookEventName, group: unknown, at: JsonPathSegment[], context: HooksParseContext, hooks: HookDefinition[], errors: McpConfigError[]): void {
  if (!isJsonObject(group)) {
    errors.push(issue(context, at, `expected { "matcher", "hooks" }, got ${kindOf(group)}`));
    return;
  }
  const strict = context.source !== 'claude';
  for (const key of Object.keys(group)) {
    if (strict && key !== 'matcher' && key !== 'hooks') errors.push(issue(context, [...at, key], 'unknown field (expected "matcher" or "hooks")', 'key'));
  }
  const matcher = group.matcher ?? '';
  if (typeof matcher !== 'string') {
    errors.push(issue(context, [...at, 'matcher'], `expected a regular expression as a string, got ${kindOf(matcher)}`));
    return;
  }
  const invalid = regexProblem(matcher);
  if (invalid !== undefined) {
    errors.push(issue(context, [...at, 'matcher'], `not a valid regular expression: ${invalid}`));
    return;
  }
  if (!Array.isArray(group.hooks)) {
    errors.push(issue(context, [...at, 'hooks'], `expected an array of hook commands, got ${kindOf(group.hooks)}`));
    return;
  }
  group.hooks.forEach((entry, h) => {
    const path = [...at, 'hooks', h];
    const parsed = parseCommand(entry, path, context);
    if (typeof parsed === 'string') {
      if (parsed !== '') errors.push(issue(context, path, parsed));
      return;
    }
    for (const e of parsed.errors) errors.push(e);
    if (parsed.hook) hooks.push({ ...parsed.hook, event, matcher });
  });
}

/** One `{ "type": "command", ... }` entry; a string is why it is unusable ('' to skip it silently). */
function parseCommand(entry: unknown, path: JsonPathSegment[], context: HooksParseContext): string | { hook?: Omit<HookDefinition, 'event' | 'matcher'>; errors: McpConfigError[] } {
  if (!isJsonObject(entry)) return `expected { "type": "command", "command": ... }, got ${kindOf(entry)}`;
  const strict = context.source !== 'claude';
  if (entry.type !== 'command') {
    // Claude Code's prompt, http and agent hooks have no equivalent here.
    if (!strict) return '';
    return typeof entry.type === 'string' ? `hook type "${entry.type}" is not supported (only "command")` : 'expected "type": "command"';
  }
  const errors: McpConfigError[] = [];
  if (typeof entry.command !== 'string' || entry.command.trim() === '') {
    errors.push(issue(context, [...path, 'command'], `expected a command line, got ${entry.command === '' ? 'an empty string' : kindOf(entry.command)}`));
    return { errors };
  }
  let timeoutSec = DEFAULT_HOOK_TIMEOUT_SEC;
  if (entry.timeout !== undefined) {
    if (Number.isFinite(entry.timeout) && (entry.timeout as number) > 0) timeoutSec = entry.timeout as number;
    else errors.push(issue(context, [...path, 'timeout'], `expected a positive number of seconds, got ${JSON.stringify(entry.timeout) ?? kindOf(entry.timeout)}`));
  }
  let onError: 'block' | 'continue' = 'block';
  if (entry.onError !== undefined) {
    if (entry.onError === 'block' || entry.onError === 'continue') onError = entry.onError;
    else errors.push(issue(context, [...path, 'onError'], `expected "block" or "continue", got ${JSON.stringify(entry.onError) ?? kindOf(entry.onError)}`));
  }
  if (strict) {
    for (const key of Object.keys(entry)) {
      if (!['type', 'command', 'timeout', 'onError'].includes(key) && !IGNORED_FIELDS.has(key)) errors.push(issue(context, [...path, key], 'unknown field (expected "type", "command", "timeout" or "onError")', 'key'));
    }
  }
  // A bad timeout or onError is not guessed at: the hook is left out, and said so.
  if (errors.length > 0) return { errors };
  const full = [...(context.basePath ?? []), ...path];
  const jsonPath = formatJsonPath(full);
  const at = context.locator?.valuePosition(full);
  const origin: HookOrigin = {
    source: context.source,
    file: context.file,
    jsonPath,
    ...(at ?? {}),
    ...(context.workspaceFolder !== undefined ? { workspaceFolder: context.workspaceFolder } : {}),
  };
  return { hook: { id: `${context.file}#${jsonPath}`, command: entry.command, timeoutSec, onError, origin }, errors };
}

function regexProblem(source: string): string | undefined {
  try {
    new RegExp(source);
    return undefined;
  } catch (err) {
    return errorMessage(err);
  }
}

function issue(context: HooksParseContext, path: readonly JsonPathSegment[], message: string, anchor?: 'key'): McpConfigError {
  const full = [...(context.basePath ?? []), ...path];
  const at = anchor === 'key' ? context.locator?.keyPosition(full) : context.locator?.valuePosition(full);
  return { file: context.file, ...(full.length ? { jsonPath: formatJsonPath(full) } : {}), ...(at ?? {}), message };
}
