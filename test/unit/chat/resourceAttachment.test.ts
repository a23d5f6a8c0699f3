import { describe, expect, it } from 'vitest';
import { MAX_ATTACHED_IMAGE_BYTES, lastSegment, promptContent, resourceAttachment } from '../../../src/core/chat/resourceAttachment';
import { modelMessage, withContext, type ChatAttachment } from '../../../src/core/chat/ChatContext';

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('resourceAttachment', () => {
  it('keeps text as text, with its type, size and server for the chip', () => {
    const a = resourceAttachment('srv', 'file:///a.md', 'a.md', { contents: [{ uri: 'file:///a.md', mimeType: 'text/markdown', text: '# Title' }] });
    expect(a).toEqual({ kind: 'resource', label: 'a.md', path: 'file:///a.md', server: 'srv', text: '# Title', detail: 'text/markdown, 7 B · srv', mimeType: 'text/markdown' });
  });

  it('names each part of a resource with several contents', () => {
    const a = resourceAttachment('srv', 'dir:///', 'dir', { contents: [{ uri: 'dir:///x', text: 'one' }, { uri: 'dir:///y', text: 'two' }] });
    expect(a.text).toBe('[dir:///x]\none\n\n[dir:///y]\ntwo');
    expect(a.detail).toBe('unknown type, 6 B · srv');
  });

  it('takes an image as an image, with the line that stands for it', () => {
    const a = resourceAttachment('srv', 'img://logo', 'logo', { contents: [{ uri: 'img://logo', mimeType: 'image/png', blob: PNG }] });
    expect(a.images).toEqual([{ mimeType: 'image/png', data: PNG, summary: 'image image/png, 70 B' }]);
    expect(a.text).toBe('');
  });

  it('describes an image too large to send instead of sending it', () => {
    const big = Buffer.alloc(MAX_ATTACHED_IMAGE_BYTES + 1).toString('base64');
    const a = resourceAttachment('srv', 'img://big', 'big', { contents: [{ uri: 'img://big', mimeType: 'image/jpeg', blob: big }] });
    expect(a.images).toBeUndefined();
    expect(a.text).toBe('[binary resource: image/jpeg, 5 MB; its bytes are not shown to the model]');
  });

  it('decodes a blob whose type is text, and summarises one that is not UTF-8 after all', () => {
    expect(resourceAttachment('s', 'u', 'n', { contents: [{ uri: 'u', mimeType: 'application/json', blob: b64('{"a":1}') }] }).text).toBe('{"a":1}');
    expect(resourceAttachment('s', 'u', 'n', { contents: [{ uri: 'u', mimeType: 'application/vnd.api+json', blob: b64('{}') }] }).text).toBe('{}');
    expect(resourceAttachment('s', 'u', 'n', { contents: [{ uri: 'u', mimeType: 'text/plain', blob: b64(new Uint8Array([0xff, 0xfe])) }] }).text).toBe(
      '[binary resource: text/plain, 2 B; its bytes are not shown to the model]',
    );
  });

  it('summarises other binary content by type and size', () => {
    const a = resourceAttachment('s', 'u', 'n', { contents: [{ uri: 'u', blob: b64(new Uint8Array(2048)) }] });
    expect(a.text).toBe('[binary resource: unknown type, 2 KB; its bytes are not shown to the model]');
  });

  it('describes malformed and empty answers instead of throwing', () => {
    expect(resourceAttachment('s', 'u', 'n', { contents: [{ uri: 'u' } as never] }).text).toBe('[malformed resource contents]');
    expect(resourceAttachment('s', 'u', 'n', { contents: [] }).text).toBe('(the resource is empty)');
    expect(resourceAttachment('s', 'u', 'n', {} as never).text).toBe('(the resource is empty)');
  });
});

describe('promptContent', () => {
  it("joins the messages' text, marks the assistant's, and turns embedded resources and images into attachments", () => {
    const { text, attachments } = promptContent('srv', {
      messages: [
        { role: 'user', content: { type: 'text', text: 'Review this.' } },
        { role: 'assistant', content: { type: 'text', text: 'Which part?' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'book://a/b.txt', mimeType: 'text/plain', text: 'Once upon a time' } } },
        { role: 'user', content: { type: 'image', mimeType: 'image/png', data: PNG } },
        { role: 'user', content: { type: 'resource_link', uri: 'book://c', name: 'C' } },
        { role: 'user', content: { type: 'audio', mimeType: 'audio/wav', data: '' } },
      ],
    });
    expect(text).toBe('Review this.\n\nAssistant: Which part?\n\n[C](book://c)\n\n[audio audio/wav, not shown]');
    expect(attachments.map((a) => [a.label, a.path, a.text])).toEqual([
      ['b.txt', 'book://a/b.txt', 'Once upon a time'],
      ['image 2', 'image 2', ''],
    ]);
    expect(attachments[1]!.images?.[0]?.mimeType).toBe('image/png');
  });

  it('skips what it cannot read', () => {
    expect(promptContent('srv', { messages: [{ role: 'user', content: { type: 'what' } }, null] } as never)).toEqual({ text: '', attachments: [] });
  });
});

describe('lastSegment', () => {
  it("is a URI's last path part, decoded", () => {
    expect(lastSegment('demo://resource/static/document/features.md')).toBe('features.md');
    expect(lastSegment('file:///a/My%20Notes.txt?x=1#y')).toBe('My Notes.txt');
    expect(lastSegment('demo://dir/')).toBe('dir');
    expect(lastSegment('bad://%E0%A4%A')).toBe('%E0%A4%A');
  });
});

describe('modelMessage', () => {
  const file: ChatAttachment = { kind: 'file', label: 'a.ts', path: 'src/"a".ts', text: 'let a;' };
  const logo = resourceAttachment('srv', 'img://logo', 'logo', { contents: [{ uri: 'img://logo', mimeType: 'image/png', blob: PNG }] });

  it('puts each attachment after the text in delimiters naming where it is from', () => {
    expect(withContext('hi', [])).toBe('hi');
    expect(withContext('hi', [file])).toBe('hi\n\nAttached by the user:\n\n<context kind="file" path="src/%22a%22.ts">\nlet a;\n</context>');
  });

  it('sends images to a model that takes their type, and says so in the text', () => {
    const seen = modelMessage('look', [logo], ['image/png']);
    expect(seen.images).toEqual([{ mimeType: 'image/png', data: PNG }]);
    expect(seen.text).toContain('<context kind="resource" server="srv" uri="img://logo">\n[image image/png, 70 B: attached as image 1]\n</context>');
  });

  it('describes images to a model that does not take them', () => {
    const blind = modelMessage('look', [logo], ['image/jpeg']);
    expect(blind.images).toEqual([]);
    expect(blind.text).toContain('[image image/png, 70 B: not shown, this model does not take it]');
  });
});
