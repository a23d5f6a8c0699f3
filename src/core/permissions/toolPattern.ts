import { MCP_TOOL_NAME_PREFIX } from '../tools/McpToolNaming';

/**
 * What a rule pattern is matched against: a tool's (or a resource's, a prompt's) identity, never
 * its exposed name, which a later server could take.
 */
export interface PatternSubject {
  /** The configured server name, exactly as in the configuration; absent for built-in tools. */
  readonly server?: string;
  /** The tool's (resource's, prompt's) own name on its server. */
  readonly name: string;
}

interface CompiledPattern {
  readonly source: string;
  /** Built-in patterns: a whole-name glob. */
  readonly builtin?: RegExp;
  /** MCP patterns: every way to split the text after `mcp__` at a `__`, as (server, tool) globs. */
  readonly splits?: readonly { readonly server: RegExp; readonly tool: RegExp; readonly anyTool: boolean }[];
  /** `*`: everything. */
  readonly all?: boolean;
}

const cache = new Map<string, CompiledPattern>();
const MAX_CACHED = 1000;

/**
 * Whether a rule pattern matches a tool. The language:
 * - `*` matches every tool, built-in or MCP;
 * - a pattern that starts with `mcp__` is `mcp__SERVER__TOOL`: SERVER is matched against the
 *   server's configured name exactly (so `mcp__mem__*` never matches servers `mem__evil` or
 *   `mem.`), and a `*` in it never matches across `__` (a lone `*` matches any server); TOOL is
 *   matched against the tool's own name, `*` matching any run of characters. `mcp__SERVER` alone
 *   means every tool of that server. When SERVER or TOOL contain `__` themselves, every split of
 *   the pattern at a `__` is tried;
 * - any other pattern is matched against built-in tool names only.
 * `*` is any run of characters, `?` one character; everything else matches itself, case-sensitively.
 */
export function matchToolPattern(pattern: string, subject: PatternSubject): boolean {
  const compiled = compile(pattern);
  if (compiled.all) return true;
  if (subject.server === undefined) return compiled.builtin?.test(subject.name) ?? false;
  return compiled.splits?.some((s) => s.server.test(subject.server!) && s.tool.test(subject.name)) ?? false;
}

/** The first pattern of `patterns` that matches `subject`, if any. */
export function findMatchingPattern(patterns: readonly string[] | undefined, subject: PatternSubject): string | undefined {
  return patterns?.find((p) => matchToolPattern(p, subject));
}

/**
 * Whether `pattern` covers everything of `server`: `*`, `mcp__*`, `mcp__SERVER`, `mcp__SERVER__*`.
 * A denied server's resources and prompts are denied with its tools.
 */
export function patternCoversServer(pattern: string, server: string): boolean {
  const compiled = compile(pattern);
  return compiled.all === true || (compiled.splits?.some((s) => s.anyTool && s.server.test(server)) ?? false);
}

function compile(pattern: string): CompiledPattern {
  let compiled = cache.get(pattern);
  if (!compiled) {
    compiled = build(pattern);
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, compiled);
  }
  return compiled;
}

function build(pattern: string): CompiledPattern {
  if (pattern === '*') return { source: pattern, all: true };
  if (!pattern.startsWith(MCP_TOOL_NAME_PREFIX)) return { source: pattern, builtin: glob(pattern, '.*') };
  const rest = pattern.slice(MCP_TOOL_NAME_PREFIX.length);
  const splits: { server: RegExp; tool: RegExp; anyTool: boolean }[] = [];
  if (rest === '') return { source: pattern, splits };
  for (let i = rest.indexOf('__'); i >= 0; i = rest.indexOf('__', i + 1)) {
    const tool = rest.slice(i + 2);
    splits.push({ server: serverGlob(rest.slice(0, i)), tool: glob(tool, '.*'), anyTool: tool === '*' });
  }
  // No `__` at all (or a pattern such as `mcp__github`): every tool of the servers it names.
  if (!rest.includes('__')) splits.push({ server: serverGlob(rest), tool: /^/, anyTool: true });
  return { source: pattern, splits };
}

/** A server glob: a lone `*` is any server; otherwise `*` is any run that does not contain `__`. */
function serverGlob(text: string): RegExp {
  return text === '*' ? /^[\s\S]*$/ : glob(text, '(?:(?!__)[\\s\\S])*');
}

function glob(text: string, star: string): RegExp {
  let source = '';
  for (const ch of text) {
    if (ch === '*') source += star;
    else if (ch === '?') source += '[\\s\\S]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u');
}
