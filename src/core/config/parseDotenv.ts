const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' };

/**
 * Parses dotenv text: `KEY=VALUE` lines, an optional `export ` prefix, `#` comments, blank lines,
 * single-quoted values taken literally, double-quoted values with `\n`, `\r`, `\t`, `\"` and `\\`
 * escapes, and unquoted values with a trailing ` # comment` removed. Lines that are not
 * assignments are skipped, as dotenv does. A later key wins.
 */
export function parseDotenv(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = LINE.exec(line);
    if (match) {
      result[match[1]] = parseValue(match[2]);
    }
  }
  return result;
}

function parseValue(raw: string): string {
  const quote = raw[0];
  if (quote === "'" || quote === '"') {
    const end = closingQuote(raw, quote);
    // Stryker disable next-line EqualityOperator: the closing quote is searched from index 1
    if (end > 0) {
      const inner = raw.slice(1, end);
      return quote === '"' ? inner.replace(/\\(.)/g, (escape, char: string) => ESCAPES[char] ?? escape) : inner;
    }
  }
  // Unquoted (or an unterminated quote): `#` starts a comment only after whitespace.
  return raw.replace(/(^|\s)#.*$/, '').trim();
}

/** Index of the quote that closes `raw[0]`, skipping `\"` inside double quotes; -1 when none. */
function closingQuote(raw: string, quote: string): number {
  // Stryker disable next-line EqualityOperator: one step past the end reads undefined, which matches nothing
  for (let i = 1; i < raw.length; i++) {
    if (quote === '"' && raw[i] === '\\') {
      i++;
    } else if (raw[i] === quote) {
      return i;
    }
  }
  return -1;
}
