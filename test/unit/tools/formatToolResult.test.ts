import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import {
  base64DecodedLength,
  errorResult,
  formatByteSize,
  formatToolResult,
  truncateText,
} from '../../../src/core/tools/formatToolResult';

/** Base64 text that decodes to `bytes` bytes. */
function base64Of(bytes: number): string {
  return Buffer.alloc(bytes, 7).toString('base64');
}

/** Lets a test hand over what a lying server might send. */
function lying(value: unknown): CallToolResult {
  return value as CallToolResult;
}

describe('formatToolResult', () => {
  it('joins text blocks with newlines', () => {
    const result = formatToolResult({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] });
    expect(result).toEqual({
      isError: false,
      text: 'one\ntwo',
      content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }],
    });
  });

  it('keeps images and audio as content and summarizes them', () => {
    const image = { type: 'image' as const, data: base64Of(12 * 1024), mimeType: 'image/png' };
    const audio = { type: 'audio' as const, data: base64Of(3482), mimeType: 'audio/wav' };
    const result = formatToolResult({ content: [{ type: 'text', text: 'see:' }, image, audio] });
    expect(result.text).toBe('see:\n[image image/png, 12 KB]\n[audio audio/wav, 3.4 KB]');
    expect(result.content[1]).toBe(image);
    expect(result.content[2]).toBe(audio);
  });

  it('renders embedded resources and resource links', () => {
    const result = formatToolResult({
      content: [
        { type: 'resource', resource: { uri: 'file:///x.txt', text: 'hello', mimeType: 'text/plain' } },
        { type: 'resource', resource: { uri: 'file:///x.bin', blob: base64Of(2048), mimeType: 'application/octet-stream' } },
        { type: 'resource_link', uri: 'file:///doc.md', name: 'doc.md', description: 'the docs' },
        { type: 'resource_link', uri: 'file:///plain', name: 'plain' },
      ],
    });
    expect(result.text).toBe(
      '[resource file:///x.txt]\nhello\n[resource file:///x.bin, application/octet-stream, 2 KB]\n' +
        '[doc.md](file:///doc.md) - the docs\n[plain](file:///plain)',
    );
  });

  it('describes unknown and malformed blocks instead of throwing', () => {
    const result = formatToolResult(
      lying({
        content: [
          { type: 'foo', data: 1 },
          { type: 'text', text: 42 },
          { type: 'image', mimeType: 'image/png' },
          { type: 'resource', resource: null },
          { type: 'resource_link' },
          { nope: true },
          null,
          'junk',
        ],
      }),
    );
    expect(result.text).toBe(
      '[unsupported content type "foo"]\n[malformed text content]\n[image image/png, no data]\n' +
        '[malformed resource content]\n[malformed resource link]\n[unsupported content block without a type]',
    );
    expect(result.content).toHaveLength(6);
  });

  it('survives a result that is not an object at all', () => {
    expect(formatToolResult(lying(null))).toEqual({ isError: false, text: '(no output)', content: [] });
    expect(formatToolResult(lying({ content: 'text' })).text).toBe('(no output)');
  });

  it('includes structuredContent, and uses its JSON when there is no text', () => {
    const structuredContent = { temperature: 21.5, unit: 'C' };
    const withText = formatToolResult({ content: [{ type: 'text', text: '21.5 C' }], structuredContent });
    expect(withText.text).toBe('21.5 C');
    expect(withText.structuredContent).toEqual(structuredContent);
    const withoutText = formatToolResult({ content: [], structuredContent });
    expect(withoutText.text).toBe('{"temperature":21.5,"unit":"C"}');
    expect(withoutText.structuredContent).toBe(structuredContent);
  });

  it('reports errors with their text, or a placeholder', () => {
    const failed = formatToolResult({ content: [{ type: 'text', text: 'disk full' }], isError: true });
    expect(failed).toMatchObject({ isError: true, text: 'disk full' });
    expect(formatToolResult({ content: [], isError: true }).text).toBe('(tool reported an error without a message)');
  });

  it('says when there is no output', () => {
    expect(formatToolResult({ content: [] })).toEqual({ isError: false, text: '(no output)', content: [] });
    expect(formatToolResult({ content: [{ type: 'text', text: '' }] }).text).toBe('(no output)');
  });

  it('caps the text at 100,000 characters by default, with a note', () => {
    const text = 'a'.repeat(5 * 1024 * 1024);
    const result = formatToolResult({ content: [{ type: 'text', text }] });
    const note = '\n…[output truncated: 5,142,880 of 5,242,880 characters omitted]';
    expect(result.text).toBe('a'.repeat(100_000) + note);
    expect(result.content[0]).toEqual({ type: 'text', text });
  });

  it('honours maxOutputChars', () => {
    const result = formatToolResult({ content: [{ type: 'text', text: '0123456789' }] }, { maxOutputChars: 4 });
    expect(result.text).toBe('0123\n…[output truncated: 6 of 10 characters omitted]');
    expect(formatToolResult({ content: [{ type: 'text', text: '0123' }] }, { maxOutputChars: 4 }).text).toBe('0123');
  });

  it('keeps the whole text of a cut result, and how much of it was shown, for a host to page through', () => {
    const cut = formatToolResult({ content: [{ type: 'text', text: '0123456789' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }, { maxOutputChars: 4 });
    expect(cut.fullText).toBe('0123456789\n[image image/png, 3 B]');
    expect(cut.shownChars).toBe(4);
    const whole = formatToolResult({ content: [{ type: 'text', text: '0123' }] }, { maxOutputChars: 4 });
    expect('fullText' in whole || 'shownChars' in whole).toBe(false);
  });
});

describe('formatToolResult: fields a server may leave out or get wrong', () => {
  const textOf = (content: unknown[], extra: Record<string, unknown> = {}) => formatToolResult(lying({ content, ...extra })).text;

  it('shows structuredContent when no block is real text, even if a block claims to be', () => {
    const structuredContent = { a: 1 };
    expect(textOf([{ type: 'text', text: 42 }], { structuredContent })).toBe('{"a":1}\n[malformed text content]');
    expect(textOf([{ type: 'note', text: 'hi' }], { structuredContent })).toBe('{"a":1}\n[unsupported content type "note"]');
    expect(textOf([{ type: 'text', text: '' }], { structuredContent })).toBe('(no output)');
  });

  it('names media without a usable mime type "unknown type"', () => {
    expect(textOf([{ type: 'audio', mimeType: '', data: base64Of(10) }])).toBe('[audio unknown type, 10 B]');
    expect(textOf([{ type: 'image', mimeType: 7, data: base64Of(3) }])).toBe('[image unknown type, 3 B]');
  });

  it('describes embedded resources with missing or odd fields', () => {
    expect(textOf([{ type: 'resource', resource: { blob: base64Of(5) } }])).toBe('[resource (no uri), 5 B]');
    expect(textOf([{ type: 'resource', resource: { uri: 7, text: 'body' } }])).toBe('[resource (no uri)]\nbody');
    expect(textOf([{ type: 'resource', resource: { uri: 'u:x', mimeType: '' } }])).toBe('[resource u:x]');
    expect(textOf([{ type: 'resource', resource: { uri: 'u:x', mimeType: 3, blob: 4 } }])).toBe('[resource u:x]');
    expect(textOf([{ type: 'resource', resource: { uri: 'u:x', mimeType: 'image/png' } }])).toBe('[resource u:x, image/png]');
  });

  it('falls back to the uri for a link without a usable name, and drops an empty description', () => {
    expect(textOf([{ type: 'resource_link', uri: 'u:a', name: '' }])).toBe('[u:a](u:a)');
    expect(textOf([{ type: 'resource_link', uri: 'u:a', name: 5, description: '' }])).toBe('[u:a](u:a)');
    expect(textOf([{ type: 'resource_link', uri: 'u:a', name: 'A', description: 9 }])).toBe('[A](u:a)');
  });
});

describe('truncateText', () => {
  it('never splits a surrogate pair', () => {
    const text = `ab${'😀'.repeat(3)}`; // a, b, then three 2-unit characters: 8 units
    expect(truncateText(text, 3)).toBe('ab\n…[output truncated: 6 of 8 characters omitted]');
    expect(truncateText(text, 4)).toBe('ab😀\n…[output truncated: 4 of 8 characters omitted]');
    expect(truncateText('a😀b', 2)).toBe('a\n…[output truncated: 3 of 4 characters omitted]');
  });

  it('treats the first and last high surrogates (U+D800, U+DBFF) as the start of a pair', () => {
    expect(truncateText('a\ud800\udc00', 2)).toBe('a\n…[output truncated: 2 of 3 characters omitted]');
    expect(truncateText('a\udbff\udfff', 2)).toBe('a\n…[output truncated: 2 of 3 characters omitted]');
    // A low surrogate or an ordinary character at the cut is kept.
    expect(truncateText('ab\udc00', 2)).toBe('ab\n…[output truncated: 1 of 3 characters omitted]');
  });

  it('exceeds the cap by at most the note', () => {
    for (const max of [0, 1, 5, 99, 1000]) {
      const text = 'x😀'.repeat(500);
      const out = truncateText(text, max);
      const note = out.slice(out.lastIndexOf('\n…['));
      expect(out.length - note.length).toBeLessThanOrEqual(max);
      expect(out.length).toBeLessThanOrEqual(max + note.length);
      expect(out.startsWith(text.slice(0, out.length - note.length))).toBe(true);
    }
  });
});

describe('sizes', () => {
  it('decodes the base64 length, minus padding', () => {
    expect(base64DecodedLength('')).toBe(0);
    expect(base64DecodedLength('QQ==')).toBe(1);
    expect(base64DecodedLength('QUI=')).toBe(2);
    expect(base64DecodedLength('QUJD')).toBe(3);
    expect(base64DecodedLength('QUJD\nREVG')).toBe(6);
  });

  it('prints B, KB and MB with at most one decimal', () => {
    expect(formatByteSize(0)).toBe('0 B');
    expect(formatByteSize(1023)).toBe('1023 B');
    expect(formatByteSize(1024)).toBe('1 KB');
    expect(formatByteSize(3482)).toBe('3.4 KB');
    expect(formatByteSize(1024 * 1024 - 1)).toBe('1 MB');
    expect(formatByteSize(1.5 * 1024 * 1024)).toBe('1.5 MB');
  });
});

describe('errorResult', () => {
  it('makes an error result with the message as text', () => {
    expect(errorResult('boom')).toEqual({ isError: true, text: 'boom', content: [{ type: 'text', text: 'boom' }] });
  });
});
