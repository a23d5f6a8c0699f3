import type { HarnessTool } from '../tools/types';
import type { PoisoningHit } from './types';

// Zero-width and invisible formatting characters, bidirectional controls, Unicode tag characters.
const HIDDEN = /[\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\u3164\uFEFF\uFFA0\u{E0000}-\u{E007F}]/u;
const HIDDEN_RUN = new RegExp(`(?:${HIDDEN.source})+`, 'gu');
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

/** Text aimed at the model rather than the user: each is a family of known injection phrasings. */
const INSTRUCTIONS: readonly RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions?|prompts?|messages?|rules|directions)/i,
  /\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify|alert)\b[^.\n]{0,40}?\b(?:user|human|operator)\b/i,
  /\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human)\b/i,
  /<\s*\/?\s*(?:important|system|instructions?|secret|hidden)\s*>/i,
  /\b(?:new|updated|real)\s+(?:system\s+)?instructions\s*:/i,
  /\byou\s+are\s+now\b|\bact\s+as\s+(?:an?\s+)?(?:system|admin|developer)\b/i,
  /\bbefore\s+(?:using|calling)\s+this\s+tool\b[^.\n]{0,60}?\b(?:read|send|pass|include|call)\b/i,
];

const CONTEXT = 24;
const MAX_EXCERPT = 160;

/** Replaces every hidden character with its code point in angle brackets, e.g. `<U+200B>`. */
export function makeHiddenVisible(text: string): string {
  return text.replace(HIDDEN_ALL, (ch) => `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
}

/** Whether `text` holds any hidden character. */
export function hasHiddenCharacters(text: string): boolean {
  return HIDDEN.test(text);
}

/** Hidden characters and instruction-like text in one piece of text. */
export function scanText(text: string, where: PoisoningHit['where']): PoisoningHit[] {
  const hits: PoisoningHit[] = [];
  // Most text has no hidden character: one test, instead of a search for runs and a copy without them.
  const hidden = HIDDEN.test(text);
  if (hidden) {
    for (const match of text.matchAll(HIDDEN_RUN)) {
      hits.push({ where, kind: 'hidden_characters', excerpt: excerpt(text, match.index, match[0].length) });
    }
  }
  const visible = hidden ? text.replace(HIDDEN_ALL, '') : text;
  for (const pattern of INSTRUCTIONS) {
    const match = pattern.exec(visible);
    if (match) hits.push({ where, kind: 'instructions', excerpt: excerpt(visible, match.index, match[0].length) });
  }
  return hits;
}

/** Scans a tool's title, description and every key and string of its input schema. */
export function scanTool(tool: Pick<HarnessTool, 'title' | 'description' | 'inputSchema'>): PoisoningHit[] {
  const hits = [...(tool.title ? scanText(tool.title, 'title') : []), ...scanText(tool.description, 'description')];
  const strings: string[] = [];
  collectStrings(tool.inputSchema, strings);
  for (const text of strings) hits.push(...scanText(text, 'schema'));
  return hits;
}

/** Every string and object key in a JSON value (array indexes come along as keys; they are harmless). */
function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      out.push(key);
      collectStrings(member, out);
    }
  }
}

function excerpt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - CONTEXT);
  const end = Math.min(text.length, index + length + CONTEXT);
  const shown = makeHiddenVisible(text.slice(start, end));
  const cut = shown.length > MAX_EXCERPT ? `${shown.slice(0, MAX_EXCERPT)}…` : shown;
  return `${start > 0 ? '…' : ''}${cut}${end < text.length ? '…' : ''}`;
}
