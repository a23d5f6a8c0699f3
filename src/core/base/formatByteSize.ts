/** `512 B`, `3.4 KB`, `12 KB`, `1.5 MB` (binary units, at most one decimal): sizes for people. */
export function formatByteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const kb = oneDecimal(bytes / 1024);
  // 1,048,575 bytes would round up to "1024 KB": say "1 MB" instead.
  if (kb < 1024) return `${kb} KB`;
  return `${oneDecimal(bytes / (1024 * 1024))} MB`;
}

function oneDecimal(value: number): number {
  return Math.round(value * 10) / 10;
}
