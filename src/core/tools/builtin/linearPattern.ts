import { RE2JS } from 're2js';
import { errorMessage } from '../../base/errors';
import { BuiltinArgumentError } from './toolKit';

/**
 * Patterns from models and clients run on RE2 (re2js, a pure-JS port): matching takes time linear
 * in the text whatever the pattern, so `(a+)+$` cannot stall the process the way a backtracking
 * engine does. What RE2 leaves out (backreferences, lookaround) is refused by name.
 */

/** Longest pattern accepted: a bigger program only costs more per character. */
export const MAX_PATTERN_CHARS = 4096;

/** A compiled pattern that can only be tested, never backtrack. */
export interface LinearMatcher {
  test(text: string): boolean;
}

/** Constructs RE2 leaves out, found in a JavaScript-syntax source, each with the name the error gives. */
const UNSUPPORTED: readonly { readonly pattern: RegExp; readonly name: string }[] = [
  { pattern: /^\(\?=/, name: 'lookahead (?=...)' },
  { pattern: /^\(\?!/, name: 'negative lookahead (?!...)' },
  { pattern: /^\(\?<=/, name: 'lookbehind (?<=...)' },
  { pattern: /^\(\?<!/, name: 'negative lookbehind (?<!...)' },
  { pattern: /^\\[1-9]/, name: 'backreference (\\1...\\9)' },
  { pattern: /^\\k</, name: 'named backreference (\\k<name>)' },
];

/**
 * Compiles a regular expression written in JavaScript syntax for RE2. `\uXXXX` and `\u{X...}` become
 * RE2's `\x{...}`; backreferences and lookaround are refused with a message naming them, the
 * pattern and the argument.
 */
export function compileRegex(source: string, options: { readonly caseSensitive: boolean; readonly argument: string }): LinearMatcher {
  const { argument } = options;
  if (source.length > MAX_PATTERN_CHARS) {
    throw new BuiltinArgumentError(`argument "${argument}" is ${source.length} characters long; the limit is ${MAX_PATTERN_CHARS}`);
  }
  const translated = translateJsSyntax(source, argument);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(translated, options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  } catch (err) {
    throw new BuiltinArgumentError(`argument "${argument}" is not a valid regular expression (RE2 syntax): /${source}/: ${errorMessage(err)}`);
  }
  return { test: (text) => compiled.matcher(text).find() };
}

const ANY_CHARACTER = '[\\x{0}-\\x{10FFFF}]';
const NO_CHARACTER = '[^\\x{0}-\\x{10FFFF}]';

/** Walks the source once, outside and inside character classes, rewriting what RE2 spells differently. */
function translateJsSyntax(source: string, argument: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const rest = source.slice(i);
    const ch = source[i];
    if (!inClass) {
      const missing = UNSUPPORTED.find((u) => u.pattern.test(rest));
      if (missing) {
        throw new BuiltinArgumentError(
          `argument "${argument}" uses a ${missing.name} in /${source}/, which the linear-time engine (RE2) does not support; rewrite it without backreferences or lookaround`,
        );
      }
    }
    if (ch === '\\') {
      const unicode = /^\\u(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{4}))/.exec(rest);
      if (unicode) {
        out += `\\x{${unicode[1] ?? unicode[2]}}`;
        i += unicode[0].length - 1;
      } else {
        out += source.slice(i, i + 2);
        i++;
      }
      continue;
    }
    if (ch === '[' && inClass) {
      // In JavaScript a `[` in a class is itself; RE2 would read `[:alpha:]` there as a POSIX class.
      out += '\\[';
      continue;
    }
    if (ch === '[') {
      // JavaScript's `[]` matches nothing and `[^]` any character; in RE2 a `]` there is a literal.
      const empty = /^\[\^?\]/.exec(rest);
      if (empty) {
        out += empty[0].length === 3 ? ANY_CHARACTER : NO_CHARACTER;
        i += empty[0].length - 1;
        continue;
      }
      inClass = true;
    } else if (ch === ']' && inClass) inClass = false;
    out += ch;
  }
  return out;
}

/**
 * A glob as an RE2 matcher over `/`-separated relative paths: `*` and `?` stay inside one folder,
 * `**` as a whole segment crosses folders (none included), `[abc]` / `[!abc]` classes, `{a,b}`
 * alternatives and the extglobs `@(a|b)`, `?(a)`, `+(a)`, `*(a)`; a leading `!` negates. With
 * `basename`, a pattern without `/` is matched against the file name at any depth.
 */
export function compileGlob(glob: string, options: { readonly argument: string; readonly basename?: boolean }): LinearMatcher {
  const { argument } = options;
  if (glob.length > MAX_PATTERN_CHARS) {
    throw new BuiltinArgumentError(`argument "${argument}" is ${glob.length} characters long; the limit is ${MAX_PATTERN_CHARS}`);
  }
  const negated = glob.startsWith('!') && !glob.startsWith('!(');
  const body = negated ? glob.slice(1) : glob;
  const onName = options.basename === true && !body.includes('/');
  const source = `^${globToRegexSource(body, glob, argument)}$`;
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(source, RE2JS.DOTALL);
  } catch (err) {
    throw new BuiltinArgumentError(`argument "${argument}" is not a valid glob: "${glob}": ${errorMessage(err)}`);
  }
  return {
    test(path) {
      const subject = onName ? path.slice(path.lastIndexOf('/') + 1) : path;
      return compiled.matcher(subject).matches() !== negated;
    },
  };
}

const REGEX_SPECIAL = /[.+^$(){}|[\]\\*?]/;

function globToRegexSource(glob: string, whole: string, argument: string): string {
  // With no stop characters the sequence runs to the end of the glob.
  return parseGlob(glob, { i: 0 }, whole, argument, '');
}

/**
 * One sequence of a glob up to its end or to one of `stops` (what ends an alternative of the group
 * being read: `,}` in braces, `|)` in an extglob); the caller consumes that character.
 */
function parseGlob(glob: string, state: { i: number }, whole: string, argument: string, stops: string): string {
  let out = '';
  while (state.i < glob.length) {
    const i = state.i;
    const ch = glob[i];
    if (stops.includes(ch)) return out;
    if (ch === '\\' && i + 1 < glob.length) {
      out += escapeChar(glob[i + 1]);
      state.i += 2;
    } else if (ch === '*' && glob[i + 1] === '*' && (i === 0 || glob[i - 1] === '/') && (i + 2 === glob.length || glob[i + 2] === '/')) {
      // `**/` is any number of whole folders (none too); a final `**` is anything below.
      const final = i + 2 === glob.length;
      out += final ? '.*' : '(?:[^/]*/)*';
      state.i += final ? 2 : 3;
    } else if ('?*+@!'.includes(ch) && glob[i + 1] === '(') {
      if (ch === '!') throw new BuiltinArgumentError(`argument "${argument}" uses a negated extglob !(...) in "${whole}", which is not supported; use a leading "!" for the whole pattern`);
      state.i += 2;
      const group = parseAlternatives(glob, state, whole, argument, ')', '|');
      out += `${group}${{ '?': '?', '*': '*', '+': '+', '@': '' }[ch]}`;
    } else if (ch === '*') {
      out += '[^/]*';
      state.i += glob[i + 1] === '*' ? 2 : 1;
    } else if (ch === '?') {
      out += '[^/]';
      state.i++;
    } else if (ch === '[') {
      out += parseClass(glob, state);
    } else if (ch === '{' && hasTopLevelComma(glob, i)) {
      state.i++;
      out += parseAlternatives(glob, state, whole, argument, '}', ',');
    } else {
      out += escapeChar(ch);
      state.i++;
    }
  }
  return out;
}

function parseAlternatives(glob: string, state: { i: number }, whole: string, argument: string, close: string, separator: string): string {
  const alternatives: string[] = [];
  for (;;) {
    alternatives.push(parseGlob(glob, state, whole, argument, separator + close));
    const ch = glob[state.i];
    state.i++;
    if (ch === close) return `(?:${alternatives.join('|')})`;
    if (ch !== separator) throw new BuiltinArgumentError(`argument "${argument}" is not a valid glob: "${whole}": "${close === '}' ? '{' : '('}" is never closed`);
  }
}

/** Whether the `{` at `start` opens a `{a,b}` list (one without a comma is literal, as in picomatch). */
function hasTopLevelComma(glob: string, start: number): boolean {
  let depth = 0;
  for (let i = start; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '\\') i++;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return false;
    else if (ch === ',' && depth === 1) return true;
  }
  return false;
}

/** `[...]` as an RE2 class that never matches `/`; an unclosed `[` is a literal. */
function parseClass(glob: string, state: { i: number }): string {
  let j = state.i + 1;
  const negate = glob[j] === '!' || glob[j] === '^';
  if (negate) j++;
  let body = '';
  if (glob[j] === ']') {
    body += '\\]';
    j++;
  }
  for (; j < glob.length && glob[j] !== ']'; j++) {
    const ch = glob[j];
    if (ch === '\\' && j + 1 < glob.length) {
      const escaped = glob[++j];
      body += /[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]/.test(escaped) ? `\\${escaped}` : escaped;
    } else if (ch === '[' && glob[j + 1] === ':') {
      const end = glob.indexOf(':]', j + 2);
      if (end < 0) body += '\\[';
      else {
        body += glob.slice(j, end + 2);
        j = end + 1;
      }
    } else {
      body += '[]\\^'.includes(ch) ? `\\${ch}` : ch;
    }
  }
  if (j >= glob.length) {
    state.i++;
    return '\\[';
  }
  state.i = j + 1;
  return negate ? `[^/${body}]` : `(?:[${body}])`;
}

function escapeChar(ch: string): string {
  return REGEX_SPECIAL.test(ch) ? `\\${ch}` : ch;
}
