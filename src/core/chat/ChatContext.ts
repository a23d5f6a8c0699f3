import type { ModelImage } from '../agent/types';

/**
 * Something that goes with the next message: attached by the user (from the editor: a file, a
 * selection, problems; or a server's resource), or what an app asked the model to know (`app`,
 * labelled with the app).
 */
export interface ChatAttachment {
  readonly kind: 'file' | 'selection' | 'problems' | 'resource' | 'app';
  /** What the chip says: `src/a.ts`, `src/a.ts:10-24`, `Problems in src/a.ts`, a resource's name. */
  readonly label: string;
  /** Where it comes from, as the model is told it: a workspace-relative path, or a resource's URI. */
  readonly path: string;
  readonly text: string;
  /** The server a resource comes from (and its URI is `path`). */
  readonly server?: string;
  /** Size and type, for the chip's tooltip. */
  readonly detail?: string;
  /** A resource's (first) type. */
  readonly mimeType?: string;
  /** Images a resource holds: sent as images to a model that takes their type, else described in `text`. */
  readonly images?: readonly AttachedImage[];
}

/** An image of a resource, and the line that stands for it when the model cannot take it. */
export interface AttachedImage extends ModelImage {
  readonly summary: string;
}

/** Largest attachment text sent to the model; the rest is cut with a note. */
export const MAX_ATTACHMENT_CHARS = 100_000;

/**
 * The message the model gets: the user's text, then each attachment as text with its path, in
 * delimiters the model can tell apart from the request itself.
 */
export function withContext(text: string, attachments: readonly ChatAttachment[]): string {
  return modelMessage(text, attachments).text;
}

/**
 * {@link withContext}, with the images of attached resources: those of a type in `imageTypes` go
 * as images (the model takes them), the others are described in the text by their type and size.
 * What apps asked the model to know goes apart from what the user attached, labelled as the apps'.
 */
export function modelMessage(text: string, attachments: readonly ChatAttachment[], imageTypes: readonly string[] = []): { text: string; images: ModelImage[] } {
  const images: ModelImage[] = [];
  if (attachments.length === 0) return { text, images };
  const block = (a: ChatAttachment) => {
    let body = a.text.length > MAX_ATTACHMENT_CHARS ? `${a.text.slice(0, MAX_ATTACHMENT_CHARS)}\n[… cut: ${a.text.length - MAX_ATTACHMENT_CHARS} more characters]` : a.text;
    for (const image of a.images ?? []) {
      if (imageTypes.includes(image.mimeType)) {
        images.push({ mimeType: image.mimeType, data: image.data });
        body += `${body ? '\n' : ''}[${image.summary}: attached as image ${images.length}]`;
      } else body += `${body ? '\n' : ''}[${image.summary}: not shown, this model does not take it]`;
    }
    const where = a.server !== undefined ? `server="${attr(a.server)}" uri="${attr(a.path)}"` : `path="${attr(a.path)}"`;
    return `<context kind="${a.kind}" ${where}>\n${body}\n</context>`;
  };
  const byUser = attachments.filter((a) => a.kind !== 'app');
  const byApps = attachments.filter((a) => a.kind === 'app');
  let message = text;
  if (byUser.length) message += `\n\nAttached by the user:\n\n${byUser.map(block).join('\n\n')}`;
  if (byApps.length) message += `\n\nWhat apps in this conversation show now (kept by each app, not written by the user):\n\n${byApps.map(block).join('\n\n')}`;
  return { text: message, images };
}

function attr(value: string): string {
  return value.replace(/"/g, '%22');
}
