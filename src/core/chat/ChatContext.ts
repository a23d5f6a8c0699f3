/** Something from the editor the user attached to the next message: a file, a selection, problems. */
export interface ChatAttachment {
  readonly kind: 'file' | 'selection' | 'problems';
  /** What the chip says: `src/a.ts`, `src/a.ts:10-24`, `Problems in src/a.ts`. */
  readonly label: string;
  /** The file it comes from, as the model is told it (workspace-relative where possible). */
  readonly path: string;
  readonly text: string;
}

/** Largest attachment text sent to the model; the rest is cut with a note. */
export const MAX_ATTACHMENT_CHARS = 100_000;

/**
 * The message the model gets: the user's text, then each attachment as text with its path, in
 * delimiters the model can tell apart from the request itself.
 */
export function withContext(text: string, attachments: readonly ChatAttachment[]): string {
  if (attachments.length === 0) return text;
  const blocks = attachments.map((a) => {
    const body = a.text.length > MAX_ATTACHMENT_CHARS ? `${a.text.slice(0, MAX_ATTACHMENT_CHARS)}\n[… cut: ${a.text.length - MAX_ATTACHMENT_CHARS} more characters]` : a.text;
    return `<context kind="${a.kind}" path="${a.path.replace(/"/g, '%22')}">\n${body}\n</context>`;
  });
  return `${text}\n\nAttached by the user:\n\n${blocks.join('\n\n')}`;
}
