import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';
import { formatByteSize } from '../base/formatByteSize';
import { base64DecodedLength } from '../tools/formatToolResult';
import type { AttachedImage, ChatAttachment } from './ChatContext';

/** Largest image sent to a model as an image (the providers' own limit is about this); a larger one is described. */
export const MAX_ATTACHED_IMAGE_BYTES = 5 * 1024 * 1024;

type ResourceContents = ReadResourceResult['contents'][number];

/**
 * A resource as an attachment: text contents as text; images as images (described in the text for
 * a model that does not take them); a blob whose type is text decoded as text; any other blob
 * summarised by its type and size. Servers are not trusted: malformed contents are described.
 */
export function resourceAttachment(server: string, uri: string, name: string, result: ReadResourceResult): ChatAttachment {
  const contents: readonly unknown[] = Array.isArray(result?.contents) ? result.contents : [];
  const parts: string[] = [];
  const images: AttachedImage[] = [];
  const types = new Set<string>();
  let bytes = 0;
  for (const raw of contents) {
    const c = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<ResourceContents> & Record<string, unknown>;
    const mime = typeof c.mimeType === 'string' && c.mimeType ? c.mimeType : undefined;
    if (mime) types.add(mime);
    // Several contents (a folder, a multi-part resource): each says which it is.
    const head = contents.length > 1 && typeof c.uri === 'string' ? `[${c.uri}]\n` : '';
    if (typeof c.text === 'string') {
      bytes += Buffer.byteLength(c.text);
      parts.push(head + c.text);
    } else if (typeof c.blob === 'string') {
      const size = base64DecodedLength(c.blob);
      bytes += size;
      const blob = describeBlob(c.blob, mime, size);
      if (blob.image) images.push(blob.image);
      else parts.push(head + blob.text);
    } else parts.push(`${head}[malformed resource contents]`);
  }
  if (contents.length === 0) parts.push('(the resource is empty)');
  const detail = [...types].join(', ') || 'unknown type';
  const mimeType = [...types][0];
  return {
    kind: 'resource',
    label: name,
    path: uri,
    server,
    text: parts.join('\n\n'),
    detail: `${detail}, ${formatByteSize(bytes)} · ${server}`,
    ...(mimeType ? { mimeType } : {}),
    ...(images.length ? { images } : {}),
  };
}

/** A blob as text (its type is text and it decodes), as an image, or as a line with its type and size. */
function describeBlob(blob: string, mime: string | undefined, size: number): { text: string; image?: AttachedImage } {
  const type = mime ?? 'unknown type';
  if (mime?.startsWith('image/') && size <= MAX_ATTACHED_IMAGE_BYTES) {
    return { text: '', image: { mimeType: mime, data: blob.replace(/\s+/g, ''), summary: `image ${mime}, ${formatByteSize(size)}` } };
  }
  if (mime && isTextType(mime)) {
    try {
      return { text: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(blob, 'base64')) };
    } catch {
      // Not UTF-8 after all: summarised below.
    }
  }
  return { text: `[binary resource: ${type}, ${formatByteSize(size)}; its bytes are not shown to the model]` };
}

function isTextType(mime: string): boolean {
  const m = mime.toLowerCase().split(';')[0]!.trim();
  return m.startsWith('text/') || /^application\/(json|xml|javascript|x-yaml|yaml|toml|x-sh|sql|graphql)$/.test(m) || /\+(json|xml|yaml)$/.test(m);
}

/**
 * A prompt's messages as what the person sends: the text of each message (an assistant's marked
 * as such), and its embedded resources and images as attachments.
 */
export function promptContent(server: string, result: GetPromptResult): { text: string; attachments: ChatAttachment[] } {
  const texts: string[] = [];
  const attachments: ChatAttachment[] = [];
  const messages: readonly unknown[] = Array.isArray(result?.messages) ? result.messages : [];
  for (const raw of messages) {
    const m = (typeof raw === 'object' && raw !== null ? raw : {}) as { role?: unknown; content?: unknown };
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    for (const block of blocks) {
      const b = (typeof block === 'object' && block !== null ? block : {}) as Record<string, unknown>;
      const text = blockText(server, b, attachments);
      if (text) texts.push(m.role === 'assistant' ? `Assistant: ${text}` : text);
    }
  }
  return { text: texts.join('\n\n'), attachments };
}

function blockText(server: string, b: Record<string, unknown>, attachments: ChatAttachment[]): string | undefined {
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : undefined;
    case 'resource': {
      const r = (typeof b.resource === 'object' && b.resource !== null ? b.resource : {}) as Record<string, unknown>;
      const uri = typeof r.uri === 'string' ? r.uri : 'resource';
      attachments.push(resourceAttachment(server, uri, lastSegment(uri), { contents: [r as ResourceContents] }));
      return undefined;
    }
    case 'image': {
      const uri = `image ${attachments.length + 1}`;
      attachments.push(resourceAttachment(server, uri, uri, { contents: [{ uri, mimeType: String(b.mimeType ?? ''), blob: String(b.data ?? '') }] }));
      return undefined;
    }
    case 'resource_link':
      return typeof b.uri === 'string' ? `[${typeof b.name === 'string' ? b.name : b.uri}](${b.uri})` : undefined;
    case 'audio':
      return `[audio ${typeof b.mimeType === 'string' ? b.mimeType : 'of unknown type'}, not shown]`;
    default:
      return undefined;
  }
}

/** What a chip calls a resource known only by its URI: the last part of its path. */
export function lastSegment(uri: string): string {
  const path = uri.replace(/[?#].*$/, '').replace(/\/+$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(last) || uri;
  } catch {
    return last || uri;
  }
}
