/**
 * A few composable checks for plain JSON data crossing the webview boundary. Each returns the path
 * of the first problem or `undefined`; small enough for the browser bundle (no schema library).
 */
export type Check = (value: unknown, path: string) => string | undefined;

export const str: Check = (v, p) => (typeof v === 'string' ? undefined : `${p} must be a string`);
export const num: Check = (v, p) => (typeof v === 'number' && Number.isFinite(v) ? undefined : `${p} must be a number`);
export const bool: Check = (v, p) => (typeof v === 'boolean' ? undefined : `${p} must be a boolean`);
export const any: Check = () => undefined;

export function int(min = 0): Check {
  return (v, p) => (Number.isInteger(v) && (v as number) >= min ? undefined : `${p} must be an integer >= ${min}`);
}

export function oneOf(values: readonly string[]): Check {
  return (v, p) => (typeof v === 'string' && values.includes(v) ? undefined : `${p} must be one of ${values.join(', ')}`);
}

export function optional(check: Check): Check {
  return (v, p) => (v === undefined ? undefined : check(v, p));
}

export function array(item: Check, maxLength = 100_000): Check {
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

/** An object with these fields (others are ignored). */
export function object(fields: Readonly<Record<string, Check>>): Check {
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

/** A tagged union on `field`: the variant is picked by its value. */
export function union(field: string, variants: Readonly<Record<string, Check>>): Check {
  return (v, p) => {
    if (typeof v !== 'object' || v === null) return `${p} must be an object`;
    const tag = (v as Record<string, unknown>)[field];
    if (typeof tag !== 'string' || !Object.hasOwn(variants, tag)) return `${p}.${field} is unknown (${JSON.stringify(tag)?.slice(0, 40)})`;
    return variants[tag](v, p);
  };
}
