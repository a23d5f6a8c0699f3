import { describe, expect, it } from 'vitest';
import { definitionFingerprint, describeLaunch, formatConfigError, loadMcpConfig } from '../../../src/core/config';

/** mulberry32: a small seeded generator, so a failing case can be replayed from its index. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const int = (rng: Rng, n: number) => Math.floor(rng() * n);
const pick = <T>(rng: Rng, items: readonly T[]): T => items[int(rng, items.length)];

const ODD_TEXT = [
  '',
  '\u0000',
  '\ud800', // lone high surrogate
  '\udfff',
  '\ufeff',
  '\u202e\u202d', // bidi overrides
  '😀👩‍👩‍👧',
  'e\u0301',
  '\\u0000',
  '${',
  '${input:',
  '${env:PATH:-}',
  '"',
  '\\',
  '\n\r\t',
  '__proto__',
  'constructor',
];

function randomString(rng: Rng): string {
  switch (int(rng, 4)) {
    case 0:
      return pick(rng, ODD_TEXT);
    case 1:
      return 'x'.repeat(int(rng, 3) === 0 ? 300_000 : int(rng, 64));
    case 2:
      return Array.from({ length: int(rng, 12) }, () => String.fromCharCode(int(rng, 0x10000))).join('');
    default:
      return Array.from({ length: int(rng, 4) + 1 }, () => pick(rng, ODD_TEXT)).join('');
  }
}

function randomValue(rng: Rng, depth: number): unknown {
  switch (int(rng, depth > 3 ? 5 : 7)) {
    case 0:
      return randomString(rng);
    case 1:
      return rng() * 1e12 - 5e11;
    case 2:
      return rng() < 0.5;
    case 3:
      return null;
    case 4:
      return pick(rng, [0, -1, 1.5, 2 ** 53, Number.MAX_VALUE]);
    case 5:
      return Array.from({ length: int(rng, 4) }, () => randomValue(rng, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: int(rng, 4) }, () => [randomString(rng), randomValue(rng, depth + 1)]));
  }
}

const FIELDS = ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'url', 'headers', 'disabled', 'startupTimeoutMs', 'toolTimeoutMs'];

/** A config that is mostly well-formed: real keys, random values. */
function randomConfig(rng: Rng): string {
  const servers: Record<string, unknown> = {};
  for (let i = int(rng, 4); i >= 0; i--) {
    const entry: Record<string, unknown> = {};
    for (const field of FIELDS) {
      if (rng() < 0.4) entry[field] = randomValue(rng, 2);
    }
    if (rng() < 0.5) entry.command = 'node';
    servers[rng() < 0.7 ? `s${i}` : randomString(rng)] = rng() < 0.9 ? entry : randomValue(rng, 1);
  }
  const doc: Record<string, unknown> = { [pick(rng, ['mcpServers', 'servers'])]: servers };
  if (rng() < 0.3) doc.inputs = rng() < 0.8 ? [{ id: randomString(rng), type: 'promptString' }, randomValue(rng, 1)] : randomValue(rng, 1);
  return JSON.stringify(doc, null, int(rng, 3) * 2);
}

function deepText(rng: Rng): string {
  const depth = pick(rng, [99, 100, 101, 3_000, 20_000, 100_000]);
  const open = Array.from({ length: depth }, () => (rng() < 0.5 ? '[' : '{"k":')).join('');
  const close = [...open.matchAll(/\[|\{/g)].reverse().map((m) => (m[0] === '[' ? ']' : '}')).join('');
  const inner = rng() < 0.8 ? `${open}1${close}` : open; // sometimes never closed
  return `{"mcpServers":{"d":{"command":"x","args":${inner}}}}`;
}

/** Random edits of a valid text: deletions, insertions of syntax, truncation. */
function mutate(rng: Rng, text: string): string {
  let out = text;
  for (let i = int(rng, 6) + 1; i > 0; i--) {
    const at = int(rng, out.length + 1);
    switch (int(rng, 5)) {
      case 0:
        out = out.slice(0, at) + out.slice(at + int(rng, 8) + 1);
        break;
      case 1:
        out = out.slice(0, at) + pick(rng, ['{', '}', '[', ']', ',', ':', '"', '/*', '//', '\n', '\\']) + out.slice(at);
        break;
      case 2:
        out = out.slice(0, at);
        break;
      case 3:
        out = out.slice(0, at) + '['.repeat(int(rng, 5_000)) + out.slice(at);
        break;
      default:
        out = out.slice(0, at) + randomString(rng) + out.slice(at);
    }
  }
  return out;
}

function fuzzText(rng: Rng, index: number): string {
  switch (index % 4) {
    case 0:
      return randomConfig(rng);
    case 1:
      return mutate(rng, randomConfig(rng));
    case 2:
      return deepText(rng);
    default:
      return rng() < 0.5 ? mutate(rng, deepText(rng)) : randomString(rng);
  }
}

const HEALTHY = '/cfg/healthy.json';
const FUZZED = '/cfg/fuzzed.json';
const HEALTHY_TEXT = JSON.stringify({ mcpServers: { 'zz-healthy': { command: 'node', args: ['server.js'] } } });

describe('loadMcpConfig under fuzzed input', () => {
  it('never throws, names the fuzzed file in every error, and always keeps the healthy file', async () => {
    const rng = random(0x5eed);
    let withErrors = 0;
    for (let index = 0; index < 400; index++) {
      const text = fuzzText(rng, index);
      const files = new Map([
        [HEALTHY, HEALTHY_TEXT],
        [FUZZED, text],
      ]);
      const readFile = async (file: string) => files.get(file) ?? '';
      const result = await loadMcpConfig({ configFiles: [HEALTHY, FUZZED], readFile }).catch((e: unknown) => {
        throw new Error(`case ${index} threw: ${String(e)}`);
      });
      const context = `case ${index}: ${text.slice(0, 120)}`;
      const healthy = result.servers.find((s) => s.name === 'zz-healthy');
      expect(healthy?.problem, context).toBeUndefined();
      expect(healthy?.origin.file, context).toBe(HEALTHY);
      for (const error of result.errors) {
        expect(error.file, context).toBe(FUZZED);
        expect(error.message, context).toMatch(/\S/);
        expect(formatConfigError(error, '/cfg')).toMatch(/^fuzzed\.json/);
      }
      for (const server of result.servers) {
        expect([HEALTHY, FUZZED], context).toContain(server.origin.file);
        // What the tree and the reload logic do with every definition must not throw either.
        expect(typeof definitionFingerprint(server)).toBe('string');
        expect(typeof describeLaunch(server)).toBe('string');
        if (server.problem !== undefined) {
          expect(result.errors.length, context).toBeGreaterThan(0);
        }
      }
      if (index % 4 === 2 && /^\{"mcpServers":\{"d":\{"command":"x","args":[[{]{101}/.test(text)) {
        expect(result.errors.length, context).toBeGreaterThan(0);
      }
      if (result.errors.length > 0) withErrors++;
    }
    // The generator must actually produce broken input, or this test proves nothing.
    expect(withErrors).toBeGreaterThan(200);
  });
});
