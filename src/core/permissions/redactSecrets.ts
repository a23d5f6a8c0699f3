const SECRET_KEY = /token|secret|passw(?:or)?d|passphrase|api[-_]?key|authorization|credential|cookie|private[-_]?key|session[-_]?id|access[-_]?key|(?:^|[-_])auth(?:$|[-_])/i;

/** Values that look like credentials whatever their key: bearer/basic headers, well-known key formats, JWTs. */
const SECRET_VALUES: readonly RegExp[] = [
  /\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

export const REDACTED = '[redacted]';

/** A copy of `value` with secret-looking members and substrings replaced by `[redacted]`. */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    // Under a secret-looking key, only a nested object keeps its shape (its own keys decide).
    const nested = typeof member === 'object' && member !== null && !Array.isArray(member);
    out[key] = SECRET_KEY.test(key) && !nested ? REDACTED : redactSecrets(member);
  }
  return out;
}

function redactString(text: string): string {
  return SECRET_VALUES.reduce((acc, pattern) => acc.replace(pattern, REDACTED), text);
}
