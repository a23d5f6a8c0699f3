/**
 * Turns one of the sandbox runtime's violation reports into a line a person reads in the server's
 * log. The runtime reports `deny network-outbound HOST:PORT (reason)` from its proxy, and
 * `deny OPERATION PATH` from the kernel (seccomp on Linux, which sees attempts to write; Seatbelt
 * on macOS, which sees reads too).
 */
export function describeViolation(line: string): string {
  const network = /^deny network-outbound (\S+)(?: \((.*)\))?$/.exec(line);
  if (network) return `sandbox: refused a connection to ${network[1]}${network[2] ? ` (${network[2]})` : ''}`;
  const file = /^deny (\S+) (\/.*)$/.exec(line);
  if (file) {
    const operation = file[1];
    const what = /read/.test(operation) ? 'read' : /exec/.test(operation) ? 'run' : 'write';
    return `sandbox: refused to ${what} ${file[2]} (${operation})`;
  }
  return `sandbox: refused ${line.replace(/^deny /, '')}`;
}

/** Quotes each word for `sh`, so the runtime's shell runs exactly these arguments. */
export function shellQuote(words: readonly string[]): string {
  return words.map((w) => (/^[\w./:@%+=,-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`)).join(' ');
}
