/** Renders rows as left-aligned columns separated by two spaces; the last column is not padded. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : (cell ?? '').padEnd(widths[i]))).join('  ').trimEnd())
    .join('\n');
}

/** Cuts text to one line of at most `max` characters. */
export function oneLine(text: string | undefined, max = 120): string {
  if (!text) return '';
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
