import { createHash, randomUUID } from 'node:crypto';
import type { HarnessTool } from './types';

/** The part of a tool an approval is bound to, in a canonical form. */
export interface ToolPin {
  /** sha256 (hex) of `definition`. */
  readonly hash: string;
  /** Stable JSON of the pinned fields, kept with an approval so a later change can be shown. */
  readonly definition: string;
}

/** What a pin is computed from. */
export type PinnedFields = Pick<HarnessTool, 'server' | 'originalName' | 'title' | 'description' | 'inputSchema' | 'annotations'>;

/**
 * Pins a tool: a hash of its name (and server), title, description, input schema and annotations.
 * Key order and absent fields do not change the hash; any change of content does.
 */
export function pinTool(tool: PinnedFields): ToolPin {
  let definition: string;
  try {
    definition = stableStringify({
      server: tool.server ?? null,
      name: tool.originalName,
      title: tool.title ?? null,
      description: tool.description,
      inputSchema: tool.inputSchema,
      annotations: tool.annotations ?? {},
    });
  } catch {
    // Not JSON (a cycle, a BigInt: nothing a server can send, but a host can register): such a
    // definition matches no approval, ever.
    definition = JSON.stringify({ unserializable: randomUUID() });
  }
  return { hash: createHash('sha256').update(definition).digest('hex'), definition };
}

/** JSON with object keys sorted at every depth and `undefined` members dropped. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    // `undefined` members stay here and JSON.stringify drops them.
    out[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return out;
}

/**
 * A readable diff between two pinned definitions: one line per changed leaf, `~ path: old -> new`,
 * `+ path: value` for what was added and `- path: value` for what was removed.
 */
export function diffDefinitions(before: string, after: string): string {
  const lines: string[] = [];
  walk(parseOrSelf(before), parseOrSelf(after), '', lines);
  return lines.join('\n');
}

function parseOrSelf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(a: unknown, b: unknown, path: string, lines: string[]): void {
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const sub = path ? `${path}.${key}` : key;
      if (!(key in a)) lines.push(`+ ${sub}: ${show(b[key])}`);
      else if (!(key in b)) lines.push(`- ${sub}: ${show(a[key])}`);
      else walk(a[key], b[key], sub, lines);
    }
    return;
  }
  const left = show(a);
  const right = show(b);
  if (left !== right) lines.push(`~ ${path || '(definition)'}: ${left} -> ${right}`);
}

function show(value: unknown): string {
  return stableStringify(value);
}
