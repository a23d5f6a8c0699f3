import { matchWildcard } from '../base/matchWildcard';
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

/** A compiled pattern part: a matcher over one name (server or tool). */
type NameMatcher = (name: string) => boolean;

interface CompiledPattern {
  readonly source: string;
  /** Built-in patterns: a whole-name glob. */
  readonly builtin?: NameMatcher;
  /** MCP patterns: every way to split the text after `mcp__` at a `__`, as (server, tool) globs. */
  readonly splits?: readonly { readonly server: NameMatcher; readonly tool: NameMatcher; readonly anyTool: boolean }[];
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
 * Matching takes time proportional to the pattern and the name, whatever their shape.
 */
export function matchToolPattern(pattern: string, subject: PatternSubject): boolean {
  const compiled = compile(pattern);
  if (compiled.all) return true;
  if (subject.server === undefined) return compiled.builtin?.(subject.name) ?? false;
  return compiled.splits?.some((s) => s.server(subject.server!) && s.tool(subject.name)) ?? false;
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
  return compiled.all === true || (compiled.splits?.some((s) => s.anyTool && s.server(server)) ?? false);
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
  if (!pattern.startsWith(MCP_TOOL_NAME_PREFIX)) return { source: pattern, builtin: glob(pattern) };
  const rest = pattern.slice(MCP_TOOL_NAME_PREFIX.length);
  const splits: { server: NameMatcher; tool: NameMatcher; anyTool: boolean }[] = [];
  if (rest === '') return { source: pattern, splits };
  for (let i = rest.indexOf('__'); i >= 0; i = rest.indexOf('__', i + 1)) {
    const tool = rest.slice(i + 2);
    splits.push({ server: serverGlob(rest.slice(0, i)), tool: glob(tool), anyTool: tool === '*' });
  }
  // No `__` at all (or a pattern such as `mcp__github`): every tool of the servers it names.
  if (!rest.includes('__')) splits.push({ server: serverGlob(rest), tool: () => true, anyTool: true });
  return { source: pattern, splits };
}

/** A glob over a whole name, `*` any run and `?` one character, matched in linear time (patterns may come from a workspace). */
function glob(pattern: string): NameMatcher {
  return (name) => matchWildcard(pattern, name, { questionMark: true });
}

/** A server glob: a lone `*` is any server; otherwise `*` is any run that does not contain `__`. */
function serverGlob(pattern: string): NameMatcher {
  if (pattern === '*') return () => true;
  const p = [...pattern];
  return (name) => matchNoDoubleUnderscore(p, [...name]);
}

/**
 * Whole-string glob where no `*` may match a run holding `__`, by dynamic programming over
 * pattern and name (time is their lengths' product, never exponential). `run[j]`: the current
 * star has matched a non-empty run ending just before `j`.
 */
function matchNoDoubleUnderscore(p: readonly string[], t: readonly string[]): boolean {
  let prev = new Array<boolean>(t.length + 1).fill(false);
  prev[0] = true;
  for (const ch of p) {
    const next = new Array<boolean>(t.length + 1).fill(false);
    if (ch === '*') {
      let run = false;
      next[0] = prev[0]!;
      for (let j = 1; j <= t.length; j++) {
        run = prev[j - 1]! || (run && !(t[j - 1] === '_' && t[j - 2] === '_'));
        next[j] = prev[j]! || run;
      }
    } else {
      for (let j = 1; j <= t.length; j++) next[j] = prev[j - 1]! && (ch === '?' || ch === t[j - 1]);
    }
    prev = next;
  }
  return prev[t.length]!;
}
