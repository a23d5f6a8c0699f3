/**
 * One vocabulary for thrown values: their message, their cause chain, and the first cause of a
 * given type. Classify errors by type or code with these, never by message text.
 */

/** How deep a cause chain is followed (chains are short; a cycle must not loop). */
const MAX_CAUSE_DEPTH = 8;

/** The message of any thrown value: an `Error`'s message (or name), else its string form. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

/** `err` and then each `cause` below it, while they are `Error`s. */
export function* errorCauses(err: unknown): Generator<Error> {
  let e = err;
  for (let depth = 0; e instanceof Error && depth < MAX_CAUSE_DEPTH; depth++) {
    yield e;
    e = e.cause;
  }
}

/** The first error of type `type` in `err` or its causes. */
export function findCause<T extends Error>(err: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (const e of errorCauses(err)) if (e instanceof type) return e;
  return undefined;
}

/** Whether `err` or one of its causes satisfies `test`. */
export function someCause(err: unknown, test: (e: Error) => boolean): boolean {
  for (const e of errorCauses(err)) if (test(e)) return true;
  return false;
}

/**
 * A short, human description of any thrown value with the reasons its causes add (fetch errors
 * hide the real reason, e.g. ECONNREFUSED, in `cause`): `fetch failed (connect ECONNREFUSED ...)`.
 */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  for (const e of errorCauses(err)) {
    const text = e.message || e.name;
    if (!parts.some((p) => p.includes(text))) parts.push(text);
  }
  if (parts.length === 0) return String(err);
  return parts.reduceRight((inner, outer) => `${outer} (${inner})`);
}
