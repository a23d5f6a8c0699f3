/** Name stems that mark a secret wherever they appear in a key: `github_token`, `dbPassword`, `x-api-key`. */
const SECRET_STEM = /token|secret|passw(?:or)?d|passphrase|api[-_]?key|authorization|credential|cookie|private[-_]?key|session[-_]?id|access[-_]?key|account[-_]?key|verifier/i;

/** Words that mark a secret only as a whole word of the name (`pass`, `db_pwd`, `AccountKey`, `sig`), not inside one (`passage`, `monkey`). */
const SECRET_WORDS: ReadonlySet<string> = new Set(['pass', 'pwd', 'key', 'auth', 'sig', 'signature', 'otp', 'pin', 'sas', 'apikey']);

export const REDACTED = '[redacted]';

/**
 * Whether a key or parameter name names a secret: one of the stems anywhere in it, or one of the
 * short words as a word of its own (split at separators and camelCase humps).
 */
export function isSecretName(name: string): boolean {
  if (SECRET_STEM.test(name)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => SECRET_WORDS.has(w));
}

/** Credentials recognised by their shape, whatever surrounds them. */
const SECRET_VALUES: readonly RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g,
  /\b(?:Bearer|Basic|Digest|Negotiate)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(?:sk|pk|rk)-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}/g,
  /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /\bwhsec_[A-Za-z0-9]{20,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bgl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}/g,
  /\bnpm_[A-Za-z0-9]{36}\b/g,
  /\bpypi-[A-Za-z0-9_-]{50,}/g,
  /\bxox[abeoprs]-[A-Za-z0-9-]{10,}/g,
  /\bxapp-[0-9]-[A-Za-z0-9-]{10,}/g,
  /\bhooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g,
  /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\bya29\.[0-9A-Za-z_-]{20,}/g,
  /\bhf_[A-Za-z0-9]{30,}/g,
  /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g,
  /\bdop_v1_[a-f0-9]{64}\b/g,
  /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** `Authorization: token abc`, `Cookie: a=b; c=d`: the whole rest of the header line is the secret. */
const SECRET_HEADER = /(\b(?:proxy-)?authorization|\b(?:set-)?cookie|\bx-(?:api|auth)-(?:key|token))(["']?[ \t]*[:=][ \t]*["']?)([^\r\n"']+)/gi;

/** A password in a URL's userinfo: `https://user:pw@host`, `postgres://u:p@db`. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/?#]*):([^\s@/?#]+)@/gi;

/** curl's `-u user:password` and `--user`, `--proxy-user`. */
const USER_FLAG = /(^|\s)(-u|--user|--proxy-user|-U)(\s+|=)(["']?)([^\s"':]+):([^\s"']+)/g;

/** Command-line flags whose value is a secret: `--password X`, `--token=X`, `--api-key X`. */
const SECRET_FLAG = /(^|\s)(--?[A-Za-z][\w-]*)(\s+|=)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)/g;

/**
 * `name=value` and `name: value` pairs (query strings, connection strings, env lines, YAML, JSON
 * text) whose name is a secret's: `?access_token=...`, `Password=...;`, `"api_key": "..."`.
 */
const NAMED_VALUE = /(?<![\w.-])(["']?)([A-Za-z_][\w.-]*)\1([ \t]*[:=](?!\/\/)[ \t]*)("(?:[^"\\\r\n]|\\.)*"|'[^'\r\n]*'|[^\s&;,'"<>]+)/g;

/** A copy of `value` with secret-looking members and substrings replaced by `[redacted]`. */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    // Under a secret-looking key, only a nested object keeps its shape (its own keys decide).
    const nested = typeof member === 'object' && member !== null && !Array.isArray(member);
    out[key] = isSecretName(key) && !nested ? REDACTED : redactSecrets(member);
  }
  return out;
}

/** `text` with every credential found by shape or by the name it is given under replaced by `[redacted]`. */
export function redactString(text: string): string {
  let out = SECRET_VALUES.reduce((acc, pattern) => acc.replace(pattern, REDACTED), text);
  out = out.replace(SECRET_HEADER, (_m, name: string, sep: string) => `${name}${sep}${REDACTED}`);
  out = out.replace(URL_PASSWORD, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`);
  out = out.replace(USER_FLAG, (_m, lead: string, flag: string, sep: string, quote: string, user: string) => `${lead}${flag}${sep}${quote}${user}:${REDACTED}`);
  out = out.replace(SECRET_FLAG, (m, lead: string, flag: string, sep: string) => (isSecretName(flag.replace(/^-+/, '')) ? `${lead}${flag}${sep}${REDACTED}` : m));
  return redactNamedValues(out);
}

/**
 * The values of {@link NAMED_VALUE} pairs with a secret's name. A pair with another name is passed
 * over by its name only, so `url=https://x/?token=...` still has its token found.
 */
function redactNamedValues(text: string): string {
  const pattern = new RegExp(NAMED_VALUE.source, 'g');
  let out = '';
  let copied = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const [whole, quote, name, sep, secret] = match;
    if (!isSecretName(name) || secret.startsWith(REDACTED)) {
      pattern.lastIndex = match.index + quote.length + name.length;
      continue;
    }
    const quoted = /^["']/.test(secret) ? `${secret[0]}${REDACTED}${secret[0]}` : REDACTED;
    out += `${text.slice(copied, match.index)}${quote}${name}${quote}${sep}${quoted}`;
    copied = match.index + whole.length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
