import { describe, expect, it } from 'vitest';
import { MAX_ATTACHMENT_CHARS, modelMessage, type ChatAttachment } from '../../../src/core/chat/ChatContext';
import { lastSegment, MAX_ATTACHED_IMAGE_BYTES, promptContent, resourceAttachment } from '../../../src/core/chat/resourceAttachment';

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('modelMessage', () => {
  const file = (text: string): ChatAttachment => ({ kind: 'file', label: 'a', path: 'a.txt', text });

  it('cuts an attachment only past the limit, keeping its start', () => {
    const whole = 'x'.repeat(MAX_ATTACHMENT_CHARS);
    expect(modelMessage('q', [file(whole)]).text).toBe(`q\n\nAttached by the user:\n\n<context kind="file" path="a.txt">\n${whole}\n</context>`);
    const long = `${'y'.repeat(MAX_ATTACHMENT_CHARS)}zzz`;
    expect(modelMessage('q', [file(long)]).text).toBe(`q\n\nAttached by the user:\n\n<context kind="file" path="a.txt">\n${'y'.repeat(MAX_ATTACHMENT_CHARS)}\n[… cut: 3 more characters]\n</context>`);
  });

  it('sends the images a model takes and names the others, with no blank line before them', () => {
    const picture: ChatAttachment = {
      kind: 'resource',
      label: 'pics',
      path: 'pic://"both"',
      server: 's',
      text: '',
      images: [
        { mimeType: 'image/png', data: 'AAAA', summary: 'image image/png, 3 B' },
        { mimeType: 'image/gif', data: 'BBBB', summary: 'image image/gif, 3 B' },
      ],
    };
    const message = modelMessage('look', [picture], ['image/png']);
    expect(message.images).toEqual([{ mimeType: 'image/png', data: 'AAAA' }]);
    expect(message.text).toBe(
      'look\n\nAttached by the user:\n\n<context kind="resource" server="s" uri="pic://%22both%22">\n[image image/png, 3 B: attached as image 1]\n[image image/gif, 3 B: not shown, this model does not take it]\n</context>',
    );
  });

  it("keeps what apps show apart from what the user attached", () => {
    const app = (label: string): ChatAttachment => ({ kind: 'app', label, path: `app://${label}`, text: `${label} state` });
    expect(modelMessage('q', [app('one'), app('two')]).text).toBe(
      'q\n\nWhat apps in this conversation show now (kept by each app, not written by the user):\n\n<context kind="app" path="app://one">\none state\n</context>\n\n<context kind="app" path="app://two">\ntwo state\n</context>',
    );
  });
});

describe('resourceAttachment', () => {
  const one = (contents: unknown) => resourceAttachment('srv', 'res://x', 'x', { contents: [contents] } as never);

  it('decodes a blob only when its type is text', () => {
    for (const mime of ['application/json ; charset=utf-8', 'TEXT/Plain', 'application/ld+json', 'application/toml']) {
      expect(one({ uri: 'res://x', mimeType: mime, blob: b64('{"a":1}') }).text).toBe('{"a":1}');
    }
    for (const mime of ['application/jsonx', 'x-application/json', 'application/vnd.a+jsonx', 'application/octet-stream']) {
      expect(one({ uri: 'res://x', mimeType: mime, blob: b64('{"a":1}') }).text).toBe(`[binary resource: ${mime}, 7 B; its bytes are not shown to the model]`);
    }
  });

  it('takes an image up to the size limit, without the whitespace of its encoding', () => {
    const small = one({ uri: 'res://x', mimeType: 'image/png', blob: 'AAAA\nAAAA\n' });
    expect(small.images).toEqual([{ mimeType: 'image/png', data: 'AAAAAAAA', summary: 'image image/png, 6 B' }]);
    expect(small.text).toBe('');
    const limit = Buffer.alloc(MAX_ATTACHED_IMAGE_BYTES).toString('base64');
    expect(one({ uri: 'res://x', mimeType: 'image/png', blob: limit }).images).toHaveLength(1);
    const over = Buffer.alloc(MAX_ATTACHED_IMAGE_BYTES + 3).toString('base64');
    const big = one({ uri: 'res://x', mimeType: 'image/png', blob: over });
    expect(big.images).toBeUndefined();
    expect(big.text).toBe('[binary resource: image/png, 5 MB; its bytes are not shown to the model]');
  });

  it('adds up the sizes, names each part of several, and ignores a type that is not a string', () => {
    const a = resourceAttachment('srv', 'res://dir', 'dir', { contents: [{ uri: 'res://dir/a', text: 'abc' }, { uri: 'res://dir/b', mimeType: 42, blob: b64('12345') }] } as never);
    expect(a.text).toBe('[res://dir/a]\nabc\n\n[res://dir/b]\n[binary resource: unknown type, 5 B; its bytes are not shown to the model]');
    expect(a.detail).toBe('unknown type, 8 B · srv');
    expect(a.mimeType).toBeUndefined();
    expect(one({ uri: 'res://x', mimeType: '', text: 'plain' })).toMatchObject({ text: 'plain', detail: 'unknown type, 5 B · srv' });
  });

  it('reads a result without contents as empty', () => {
    expect(resourceAttachment('srv', 'res://x', 'x', undefined as never).text).toBe('(the resource is empty)');
  });
});

describe('promptContent', () => {
  it("takes each message's text, links and audio as text, and embedded resources and images as attachments", () => {
    const { text, attachments } = promptContent('srv', {
      messages: [
        { role: 'user', content: { type: 'text', text: 'Hello' } },
        { role: 'assistant', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 7 }] },
        { role: 'user', content: [{ type: 'resource_link', uri: 'res://a', name: 'A' }, { type: 'resource_link', uri: 'res://b' }, { type: 'resource_link' }] },
        { role: 'user', content: [{ type: 'audio', mimeType: 'audio/wav' }, { type: 'audio' }, { type: 'video' }] },
        { role: 'user', content: [{ type: 'resource', resource: { text: 'doc' } }, { type: 'image' }] },
      ],
    } as never);
    expect(text).toBe('Hello\n\nAssistant: Hi\n\n[A](res://a)\n\n[res://b](res://b)\n\n[audio audio/wav, not shown]\n\n[audio of unknown type, not shown]');
    expect(attachments.map((a) => [a.label, a.path, a.text])).toEqual([
      ['resource', 'resource', 'doc'],
      ['image 2', 'image 2', '[binary resource: unknown type, 0 B; its bytes are not shown to the model]'],
    ]);
  });

  it('reads a result without messages as nothing', () => {
    expect(promptContent('srv', undefined as never)).toEqual({ text: '', attachments: [] });
  });
});

describe('lastSegment', () => {
  it('names a resource by the last part of its path, without query, fragment or trailing slashes', () => {
    expect(lastSegment('note://a/b%20c?x=1/y#z')).toBe('b c');
    expect(lastSegment('note://a/b//')).toBe('b');
    expect(lastSegment('note://a/%E0%A4%A')).toBe('%E0%A4%A');
  });
});
