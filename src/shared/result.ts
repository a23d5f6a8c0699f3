/**
 * The one shape of an expected failure, shared by the core, the extension and the webview: a
 * function that can fail in ways the caller must handle (bad input, a missing file, a message
 * that does not fit the protocol) returns a `Result` instead of throwing. `error` is a message fit
 * for a person unless the type says otherwise.
 */
export type Result<T, E = string> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function fail<E = string>(error: E): { readonly ok: false; readonly error: E } {
  return { ok: false, error };
}
