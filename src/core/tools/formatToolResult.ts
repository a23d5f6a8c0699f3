import type { CallToolResult } from '@modelcontextprotocol/client';
import { formatByteSize } from '../base/formatByteSize';
import type { McpContentBlock, ToolCallResult } from './types';

export { formatByteSize };

/** Options of {@link formatToolResult}. */
export interface FormatToolResultOptions {
  /** Longest text returned before the truncation note; default {@link DEFAULT_MAX_OUTPUT_CHARS}. */
  readonly maxOutputChars?: number;
}

/** Default cap on the text a tool result gives the model. */
export const DEFAULT_MAX_OUTPUT_CHARS = 100_000;

const NO_OUTPUT = '(no output)';
const ERROR_WITHOUT_MESSAGE = '(tool reported an error without a message)';

type UnknownRecord = Record<string, unknown>;

/**
 * Turns an MCP `tools/call` result into model-ready text, keeping the content blocks as sent.
 *
 * Text blocks are joined with newlines; images, audio, embedded resources and resource links are
 * summarized in place; `structuredContent` stands in for the text when there is no text block.
 * The server is not trusted: malformed blocks are described, never thrown on.
 */
export function formatToolResult(result: CallToolResult, options?: FormatToolResultOptions): ToolCallResult {
  const raw: unknown = result;
  const record: UnknownRecord = isRecord(raw) ? raw : {};
  const blocks = Array.isArray(record.content) ? record.content.filter(isRecord) : [];
  const structuredContent = isRecord(record.structuredContent) ? record.structuredContent : undefined;
  const isError = record.isError === true;

  const parts = blocks.map(describeBlock);
  if (structuredContent && !blocks.some((b) => b.type === 'text' && typeof b.text === 'string')) {
    parts.unshift(JSON.stringify(structuredContent));
  }
  let text = parts.join('\n');
  if (!text) text = isError ? ERROR_WITHOUT_MESSAGE : NO_OUTPUT;

  const capped = capText(text, options?.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS);
  return {
    isError,
    text: capped.text,
    content: blocks as unknown as McpContentBlock[],
    ...(structuredContent ? { structuredContent } : {}),
    ...(capped.shownChars !== undefined ? { fullText: text, shownChars: capped.shownChars } : {}),
  };
}

/** A failed call as a tool result: `isError` with `message` as its only text. */
export function errorResult(message: string): ToolCallResult {
  return { isError: true, text: message, content: [{ type: 'text', text: message }] };
}

/**
 * Caps `text` at `maxChars` UTF-16 code units (never splitting a surrogate pair) and appends a
 * note saying how much was cut. Only the note may go past `maxChars`.
 */
export function truncateText(text: string, maxChars: number): string {
  return capText(text, maxChars).text;
}

/**
 * {@link truncateText}, also saying how many characters of `text` it kept (`shownChars`, absent
 * when nothing was cut), so a host can keep the whole text and page through the rest.
 */
export function capText(text: string, maxChars: number): { text: string; shownChars?: number } {
  const limit = Number.isNaN(maxChars) ? DEFAULT_MAX_OUTPUT_CHARS : Math.max(0, Math.floor(maxChars));
  if (text.length <= limit) return { text };
  let keep = limit;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: at 0, charCodeAt(-1) is NaN, no surrogate either
  if (keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))) keep--;
  const omitted = (text.length - keep).toLocaleString('en-US');
  const total = text.length.toLocaleString('en-US');
  return { text: `${text.slice(0, keep)}\n…[output truncated: ${omitted} of ${total} characters omitted]`, shownChars: keep };
}

function describeBlock(block: UnknownRecord): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '[malformed text content]';
    case 'image':
    case 'audio':
      return `[${block.type} ${describeMedia(block.mimeType, block.data)}]`;
    case 'resource':
      return describeEmbeddedResource(block.resource);
    case 'resource_link':
      return describeResourceLink(block);
    default:
      return typeof block.type === 'string'
        ? `[unsupported content type ${JSON.stringify(block.type)}]`
        : '[unsupported content block without a type]';
  }
}

function describeMedia(mimeType: unknown, data: unknown): string {
  const type = typeof mimeType === 'string' && mimeType ? mimeType : 'unknown type';
  return typeof data === 'string' ? `${type}, ${formatByteSize(base64DecodedLength(data))}` : `${type}, no data`;
}

function describeEmbeddedResource(resource: unknown): string {
  if (!isRecord(resource)) return '[malformed resource content]';
  const uri = typeof resource.uri === 'string' ? resource.uri : '(no uri)';
  if (typeof resource.text === 'string') return `[resource ${uri}]\n${resource.text}`;
  const details = [uri];
  if (typeof resource.mimeType === 'string' && resource.mimeType) details.push(resource.mimeType);
  if (typeof resource.blob === 'string') details.push(formatByteSize(base64DecodedLength(resource.blob)));
  return `[resource ${details.join(', ')}]`;
}

function describeResourceLink(block: UnknownRecord): string {
  if (typeof block.uri !== 'string') return '[malformed resource link]';
  const uri = block.uri;
  const name = typeof block.name === 'string' && block.name ? block.name : uri;
  const description = typeof block.description === 'string' && block.description ? ` - ${block.description}` : '';
  return `[${name}](${uri})${description}`;
}

/** Bytes encoded by a base64 string: `floor(len * 3 / 4)` minus the padding. */
export function base64DecodedLength(data: string): number {
  // Stryker disable next-line Regex: removing whitespace one character or one run at a time is the same
  const compact = data.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isRecord(value: unknown): value is UnknownRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
