import { createScanner, SyntaxKind } from 'jsonc-parser';

/**
 * Deepest nesting of objects and arrays a config file may have. Real configs stay below ten;
 * the JSONC parser and every walk over its tree recurse once per level, so far deeper text would
 * exhaust the call stack instead of being reported.
 */
export const MAX_CONFIG_NESTING = 100;

/**
 * Offset of the first `{` or `[` that opens a level deeper than `limit`, or undefined when the
 * text stays within it. Scans tokens in a loop (no recursion), so strings and comments that
 * contain brackets do not count, and any depth of input is safe to measure.
 */
export function findExcessNesting(text: string, limit: number = MAX_CONFIG_NESTING): number | undefined {
  // Stryker disable next-line BooleanLiteral: trivia tokens are neither brackets nor EOF
  const scanner = createScanner(text, false);
  let depth = 0;
  for (let token = scanner.scan(); token !== SyntaxKind.EOF; token = scanner.scan()) {
    if (token === SyntaxKind.OpenBraceToken || token === SyntaxKind.OpenBracketToken) {
      depth++;
      if (depth > limit) {
        return scanner.getTokenOffset();
      }
    } else if (token === SyntaxKind.CloseBraceToken || token === SyntaxKind.CloseBracketToken) {
      // A stray closer is a syntax error the parser reports; it must not hide later depth.
      depth = Math.max(0, depth - 1);
    }
  }
  return undefined;
}
