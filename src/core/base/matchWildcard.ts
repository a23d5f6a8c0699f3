/**
 * Whether `text` as a whole matches `pattern`, where `*` is any run of characters (none too) and,
 * with `questionMark`, `?` is any one character; every other character matches itself. Greedy with
 * one remembered star, so the time is at most pattern length times text length: a pattern such
 * as `*a*a*a*a*b` cannot stall the process the way the same pattern as a backtracking RegExp does.
 */
export function matchWildcard(pattern: string, text: string, options: { readonly questionMark?: boolean } = {}): boolean {
  const p = [...pattern];
  const t = [...text];
  const any = options.questionMark === true;
  let pi = 0;
  let ti = 0;
  let star = -1;
  let resume = 0;
  // Past the end of the pattern, p[pi] is undefined: no star, and equal to no character.
  while (ti < t.length) {
    if (p[pi] !== '*' && (p[pi] === t[ti] || (any && p[pi] === '?'))) {
      pi++;
      ti++;
    } else if (p[pi] === '*') {
      star = pi++;
      resume = ti;
    } else if (star >= 0) {
      pi = star + 1;
      ti = ++resume;
    } else {
      return false;
    }
  }
  while (p[pi] === '*') pi++;
  return pi === p.length;
}
