import { describe, expect, it } from 'vitest';
import type { ReadResourceResult, Tool } from '@modelcontextprotocol/client';
import { sanitizeCsp } from '../../../src/core/apps/appCsp';
import { MAX_UI_RESOURCE_BYTES, readUiResource, toolUiOf, UI_MIME_TYPE, type IUiResourceSource } from '../../../src/core/apps/appResource';

const URI = 'ui://a.html';
const WHERE = 'Cannot show the app ui://a.html of server "s"';
/** A server that offers resources and answers every read with these contents. */
const answering = (...contents: unknown[]): IUiResourceSource => ({ offersResources: () => true, read: async () => ({ contents }) as ReadResourceResult });
const app = (entry: Record<string, unknown>) => answering({ uri: URI, mimeType: UI_MIME_TYPE, ...entry });
const read = (source: IUiResourceSource, uri = URI) => readUiResource('s', uri, source);
const html = '<html><body>hi</body></html>';

describe("a tool's declared UI", () => {
  it('is none when the tool declares no URI, and an error naming a URI that is not ui://', () => {
    expect(toolUiOf({ name: 't', inputSchema: { type: 'object' }, _meta: { ui: {} } })).toBeUndefined();
    const long = `https://example.com/${'a'.repeat(300)}`;
    const error = toolUiOf({ name: 't', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: long } } } as Tool);
    expect(error).toEqual({ error: `The tool "t" declares a UI that cannot be shown: ${JSON.stringify(long).slice(0, 200)} is not a ui:// resource.` });
    expect(toolUiOf({ name: 't', inputSchema: { type: 'object' }, _meta: { 'ui/resourceUri': 42 } })).toEqual({ error: 'The tool "t" declares a UI that cannot be shown: 42 is not a ui:// resource.' });
  });
});

describe("reading an app's resource", () => {
  it('reads HTML given as text, with no sandbox asked for when the resource declares none', async () => {
    expect(await read(app({ text: html }))).toEqual({ ok: true, value: { uri: URI, html, csp: {}, permissions: {}, notes: [] } });
  });

  it('refuses a URI that is not ui:// and a server without resources, without reading', async () => {
    let reads = 0;
    const source = (offers: boolean): IUiResourceSource => ({ offersResources: () => offers, read: async () => (reads++, { contents: [] }) });
    expect(await read(source(true), 'https://x/a.html')).toEqual({ ok: false, error: 'Cannot show the app https://x/a.html of server "s": its URI is not a ui:// resource.' });
    expect(await read(source(false))).toEqual({
      ok: false,
      error: `${WHERE}: the server does not offer resources (no "resources" capability), so its UI cannot be read.`,
    });
    expect(reads).toBe(0);
  });

  it('says why when the read fails or answers nothing usable', async () => {
    const failing: IUiResourceSource = { offersResources: () => true, read: async () => Promise.reject(new Error('boom')) };
    expect(await read(failing)).toEqual({ ok: false, error: `${WHERE}: reading it failed: boom` });
    const nothing: IUiResourceSource = { offersResources: () => true, read: async () => undefined as unknown as ReadResourceResult };
    expect(await read(nothing)).toEqual({ ok: false, error: `${WHERE}: the server's answer holds no content for that URI.` });
    expect(await read(answering(null, 'text', [URI]))).toEqual({ ok: false, error: `${WHERE}: the server's answer holds no content for that URI.` });
  });

  it('names a wrong or missing MIME type', async () => {
    expect(await read(answering({ uri: URI, mimeType: 'text/html', text: html }))).toEqual({ ok: false, error: `${WHERE}: its MIME type is "text/html", not "${UI_MIME_TYPE}".` });
    expect(await read(answering({ uri: URI, text: html }))).toEqual({ ok: false, error: `${WHERE}: its MIME type is missing, not "${UI_MIME_TYPE}".` });
  });

  it('refuses content with neither text nor a blob, and HTML that is only whitespace', async () => {
    expect(await read(app({}))).toEqual({ ok: false, error: `${WHERE}: it has neither text nor a blob.` });
    expect(await read(app({ text: ' \n\t ' }))).toEqual({ ok: false, error: `${WHERE}: its HTML is empty.` });
    expect(await read(app({ blob: Buffer.from('  ').toString('base64') }))).toEqual({ ok: false, error: `${WHERE}: its HTML is empty.` });
  });

  it('takes HTML of exactly the size limit and refuses one byte more, naming both sizes', async () => {
    expect(await read(app({ text: 'x'.repeat(MAX_UI_RESOURCE_BYTES) }))).toMatchObject({ ok: true });
    expect(await read(app({ text: 'x'.repeat(MAX_UI_RESOURCE_BYTES + 1) }))).toEqual({ ok: false, error: `${WHERE}: it is 4.0 MB, over the 4.0 MB an app may be.` });
    expect(await read(app({ text: 'é'.repeat(3 * 1024 * 1024) }))).toEqual({ ok: false, error: `${WHERE}: it is 6.0 MB, over the 4.0 MB an app may be.` });
  });

  it('decodes a blob up to the limit, and refuses a longer one before decoding it', async () => {
    const blob = (bytes: number) => Buffer.alloc(bytes, 'x').toString('base64');
    expect(await read(app({ blob: blob(MAX_UI_RESOURCE_BYTES - 1) }))).toMatchObject({ ok: true, value: { html: 'x'.repeat(MAX_UI_RESOURCE_BYTES - 1) } });
    // Short enough to decode, then too large once decoded.
    expect(await read(app({ blob: blob(MAX_UI_RESOURCE_BYTES + 2) }))).toEqual({ ok: false, error: `${WHERE}: it is 4.0 MB, over the 4.0 MB an app may be.` });
    // Too long to decode at all.
    expect(await read(app({ blob: 'A'.repeat(Math.ceil((MAX_UI_RESOURCE_BYTES * 4) / 3) + 5) }))).toEqual({ ok: false, error: `${WHERE}: it is over the 4.0 MB an app may be.` });
  });
});

describe('the sandbox an app asks for', () => {
  const declared = async (meta: unknown) => {
    const result = await read(app({ text: html, _meta: meta }));
    if (!result.ok) throw new Error(result.error);
    return result.value;
  };

  it('gives nothing, with a note, when _meta.ui is not an object', async () => {
    for (const ui of ['yes', ['csp'], null]) {
      expect(await declared({ ui })).toEqual({ uri: URI, html, csp: {}, permissions: {}, notes: ['Its _meta.ui is not an object: it gets no network access and no permissions.'] });
    }
    expect(await declared('not meta')).toMatchObject({ csp: {}, permissions: {}, notes: [] });
  });

  it('keeps declared origins, object permissions and a boolean border preference', async () => {
    const value = await declared({
      ui: { csp: { connectDomains: ['https://api.example.com'] }, permissions: { microphone: {}, geolocation: true, clipboardWrite: {} }, prefersBorder: false },
    });
    expect(value).toEqual({ uri: URI, html, csp: { connectDomains: ['https://api.example.com'] }, permissions: { microphone: {}, clipboardWrite: {} }, prefersBorder: false, notes: [] });
    expect(await declared({ ui: { prefersBorder: true } })).toMatchObject({ prefersBorder: true });
  });

  it('ignores a policy, permissions or border preference of the wrong shape', async () => {
    const value = await declared({ ui: { csp: ['https://api.example.com'], permissions: 'camera', prefersBorder: 'yes' } });
    expect(value).toEqual({ uri: URI, html, csp: {}, permissions: {}, notes: [] });
  });

  it('lists every origin left out in one note', async () => {
    const value = await declared({ ui: { csp: { connectDomains: ['a', 'https://ok.example.com'], frameDomains: ['b'] } } });
    expect(value.notes).toEqual(['Left out of its content security policy (not an origin): "a", "b".']);
  });
});

describe('sanitizing declared origins', () => {
  it('accepts no declaration at all', () => {
    expect(sanitizeCsp(undefined)).toEqual({ csp: {}, ignored: [] });
  });

  it('names a non-string entry even when it would print as an origin, and shortens long entries', () => {
    const long = `https://${'a'.repeat(100)}.com/path`;
    const { csp, ignored } = sanitizeCsp({ connectDomains: [['https://api.example.com'] as unknown as string, long, 'https://ok.example.com'] });
    expect(csp).toEqual({ connectDomains: ['https://ok.example.com'] });
    expect(ignored).toEqual(['["https://api.example.com"]', JSON.stringify(long).slice(0, 80)]);
    expect(ignored[1]).toHaveLength(80);
  });
});
