/** What a masked secret reads as. */
export const SECRET_MASK = '••••';

/**
 * Values shorter than this are not masked inside other text: `1` or `on` from the environment
 * would turn every message into noise. URL passwords are masked whatever their length.
 */
export const MIN_MASKED_CHARS = 4;

/** `scheme://user:password@`: the password part, written literally or substituted. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:@/?#]*):([^\s@/?#]+)@/gi;

/**
 * Masks the secrets of server definitions wherever they land in text: every value a `${env:...}`,
 * `${VAR}` or `${input:...}` variable resolved to, every `envFile` value, pre-registered OAuth
 * client secrets, and a URL's userinfo password even when written literally. Each value is also
 * masked in its URL-encoded and JSON-escaped forms, since that is how it appears in a URL or a
 * relayed JSON error. Plain text from the definition itself (a literal path) is not a secret.
 */
export class McpSecretMask {
  /** Every spelling to replace, longest first, so a secret containing another is masked whole. */
  private readonly _needles: readonly string[];
  private readonly _values: readonly string[];

  constructor(values: Iterable<string>) {
    const needles = new Set<string>();
    this._values = [...values];
    for (const value of this._values) {
      if (value.length < MIN_MASKED_CHARS) continue;
      needles.add(value);
      needles.add(encodeURIComponent(value));
      needles.add(JSON.stringify(value).slice(1, -1));
    }
    this._needles = [...needles].sort((a, b) => b.length - a.length);
  }

  /** A mask over the values of several. */
  static union(masks: Iterable<McpSecretMask>): McpSecretMask {
    return new McpSecretMask([...masks].flatMap((mask) => mask._values));
  }

  /** `text` with every known secret, and every URL password, replaced by {@link SECRET_MASK}. */
  mask(text: string): string {
    let out = text;
    for (const needle of this._needles) out = out.split(needle).join(SECRET_MASK);
    return maskUrlPasswords(out);
  }
}

/** `http://user:pw@host` -> `http://user:••••@host`, anywhere in `text`. */
export function maskUrlPasswords(text: string): string {
  return text.replace(URL_PASSWORD, (_whole, scheme: string, user: string) => `${scheme}${user}:${SECRET_MASK}@`);
}

/** The userinfo password of a URL, percent-decoded, if it has one. */
export function urlPassword(url: string | undefined): string | undefined {
  try {
    // new URL(undefined) throws too: no URL, no password.
    const password = new URL(url as string).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}
