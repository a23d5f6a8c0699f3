/**
 * A few composable checks for plain JSON data crossing the webview boundary. Each returns the path
 * of the first problem or `undefined`, and carries the type of what it accepts, so a message's
 * shape is written once (as its check) and its type derived from it with `Infer`. Small enough
 * for the browser bundle (no schema library).
 */
export interface Check<T> {
  (value: unknown, path: string): string | undefined;
  /** Type only: what the check accepts. */
  readonly __type?: T;
}

/** A member of an `object` that may be absent. */
export interface OptionalCheck<T> extends Check<T | undefined> {
  readonly optional: true;
}

/** The type a check accepts. */
export type Infer<C> = C extends Check<infer T> ? T : never;

type Fields = Readonly<Record<string, Check<unknown>>>;
type RequiredKeys<F extends Fields> = { [K in keyof F]: F[K] extends OptionalCheck<unknown> ? never : K }[keyof F];
type OptionalKeys<F extends Fields> = { [K in keyof F]: F[K] extends OptionalCheck<unknown> ? K : never }[keyof F];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The object type a set of fields describes: optional checks make optional members. */
export type ObjectOf<F extends Fields> = Simplify<
  { readonly [K in RequiredKeys<F>]: Infer<F[K]> } & { readonly [K in OptionalKeys<F>]?: Exclude<Infer<F[K]>, undefined> }
>;

export const str: Check<string> = (v, p) => (typeof v === 'string' ? undefined : `${p} must be a string`);
export const num: Check<number> = (v, p) => (typeof v === 'number' && Number.isFinite(v) ? undefined : `${p} must be a number`);
export const bool: Check<boolean> = (v, p) => (typeof v === 'boolean' ? undefined : `${p} must be a boolean`);
export const any: Check<unknown> = () => undefined;

/** Nothing to check: a message or an answer without content. */
export const none: Check<void> = () => undefined;

export function int(min = 0): Check<number> {
  return (v, p) => (Number.isInteger(v) && (v as number) >= min ? undefined : `${p} must be an integer >= ${min}`);
}

/** A string no longer than `max`. */
export function boundedStr(max: number): Check<string> {
  return (v, p) => str(v, p) ?? ((v as string).length > max ? `${p} is longer than ${max} characters` : undefined);
}

export function oneOf<const T extends readonly string[]>(values: T): Check<T[number]> {
  return (v, p) => (typeof v === 'string' && values.includes(v) ? undefined : `${p} must be one of ${values.join(', ')}`);
}

export function optional<T>(check: Check<T>): OptionalCheck<T> {
  const wrapped = ((v: unknown, p: string) => (v === undefined ? undefined : check(v, p))) as Check<T | undefined>;
  return Object.assign(wrapped, { optional: true as const });
}

export function array<T>(item: Check<T>, maxLength = 100_000): Check<readonly T[]> {
  return (v, p) => {
    if (!Array.isArray(v)) return `${p} must be an array`;
    if (v.length > maxLength) return `${p} has more than ${maxLength} entries`;
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i], `${p}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object whose every value passes `value` (at most `maxKeys` keys): a map from names to values. */
export function record<T>(value: Check<T>, maxKeys = 1000): Check<Readonly<Record<string, T>>> {
  return (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${p} must be an object`;
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length > maxKeys) return `${p} has more than ${maxKeys} keys`;
    for (const [key, item] of entries) {
      const problem = value(item, `${p}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object with these fields (others are ignored). */
export function object<F extends Fields>(fields: F): Check<ObjectOf<F>> {
  return (v, p) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${p} must be an object`;
    const record = v as Record<string, unknown>;
    for (const [key, check] of Object.entries(fields)) {
      const problem = check(record[key], `${p}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** The union of each variant's object type, tagged by `field`. */
export type UnionOf<K extends string, V extends Readonly<Record<string, Check<object>>>> = {
  [T in keyof V & string]: Simplify<{ readonly [P in K]: T } & Infer<V[T]>>;
}[keyof V & string];

/** A tagged union on `field`: the variant is picked by its value. */
export function union<K extends string, V extends Readonly<Record<string, Check<object>>>>(field: K, variants: V): Check<UnionOf<K, V>> {
  return (v, p) => {
    if (typeof v !== 'object' || v === null) return `${p} must be an object`;
    const tag = (v as Record<string, unknown>)[field];
    if (typeof tag !== 'string' || !Object.hasOwn(variants, tag)) return `${p}.${field} is unknown (${JSON.stringify(tag)?.slice(0, 40)})`;
    return variants[tag](v, p);
  };
}
