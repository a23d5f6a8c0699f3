import { MCP_TOOL_NAME_PREFIX } from '../tools/McpToolNaming';

/** What a tool hook's matcher is matched against: a tool's identity, never its exposed name. */
export interface HookToolSubject {
  /** The configured server name, exactly as in the configuration; absent for built-in tools. */
  readonly server?: string;
  /** The tool's own name on its server (a built-in's name). */
  readonly name: string;
}

/**
 * The name hooks know a tool by (in the matcher and as `tool_name`): a built-in's own name, or
 * `mcp__<server>__<tool>` spelt with the configured server name and the tool's own name,
 * unsanitized and never suffixed. Another server can take an exposed name, never this one.
 */
export function hookToolName(subject: HookToolSubject): string {
  return subject.server === undefined ? subject.name : `${MCP_TOOL_NAME_PREFIX}${subject.server}__${subject.name}`;
}

interface Alternative {
  readonly regex: RegExp;
  /** The server this alternative spells out (`mcp__github__...`), if it does. */
  readonly literal: string;
}

const cache = new Map<string, readonly Alternative[] | 'all'>();
const MAX_CACHED = 500;

/**
 * Whether a hook matcher (Claude Code's format: a regular expression over tool names; empty or
 * `*` for every tool) matches a tool. The expression must match the whole of {@link hookToolName}
 * (as if written between `^` and `$`), and each `|` alternative that spells out
 * `mcp__<server>__` literally is bound to that server: `mcp__memory__.*` matches the tools of the
 * server configured as `memory` only, never those of `memory__evil` (whose names also start so).
 */
export function matchesToolHook(matcher: string, subject: HookToolSubject): boolean {
  const compiled = compile(matcher);
  if (compiled === 'all') return true;
  const name = hookToolName(subject);
  return compiled.some((alt) => alt.regex.test(name) && boundTo(alt.literal, subject));
}

/** Whether a matcher matches a plain value (SessionStart's source): the whole value, empty or `*` for any. */
export function matchesValue(matcher: string, value: string): boolean {
  const compiled = compile(matcher);
  return compiled === 'all' || compiled.some((alt) => alt.regex.test(value));
}

/** An alternative that names a server literally applies to that server's tools alone. */
function boundTo(literal: string, subject: HookToolSubject): boolean {
  if (!literal.startsWith(MCP_TOOL_NAME_PREFIX) || !literal.includes('__', MCP_TOOL_NAME_PREFIX.length)) return true;
  return subject.server !== undefined && literal.startsWith(`${MCP_TOOL_NAME_PREFIX}${subject.server}__`);
}

function compile(matcher: string): readonly Alternative[] | 'all' {
  let compiled = cache.get(matcher);
  if (compiled === undefined) {
    compiled = matcher === '' || matcher === '*' ? 'all' : splitAlternatives(matcher).map((alt) => ({ regex: new RegExp(`^(?:${alt})$`), literal: literalPrefix(alt) }));
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(matcher, compiled);
  }
  return compiled;
}

/** Splits a regular expression at its top-level `|` (not inside groups or classes). */
export function splitAlternatives(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') inClass = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === '|' && depth === 0) {
      parts.push(source.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(source.slice(start));
  return parts;
}

/**
 * The text every match of `alternative` starts with: its leading literal characters (a leading
 * `^` skipped, `\.` and other escaped punctuation taken as the character), up to the first
 * special character; a character a quantifier makes optional is not part of it.
 */
export function literalPrefix(alternative: string): string {
  let out = '';
  let i = alternative.startsWith('^') ? 1 : 0;
  for (; i < alternative.length; i++) {
    const ch = alternative[i];
    if (ch === '\\') {
      const next = alternative[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) break;
      out += next;
      i++;
      continue;
    }
    if ('?*{'.includes(ch)) return out.slice(0, -1);
    if ('^$.|+()['.includes(ch)) break;
    out += ch;
  }
  return out;
}
