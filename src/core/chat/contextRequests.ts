import { errorMessage } from '../base/errors';
import type { EmbeddedBlob } from '../agent/types';
import type { WebviewRequestHandlers } from '../../shared/chatProtocol';
import type { ChatAttachments } from './ChatAttachments';
import { ChatRequestError } from './ChatRequestError';
import { ChatServerItems, type IChatServerItems } from './ChatServerItems';
import type { ChatAttachment } from './ChatContext';
import { lastSegment, resourceAttachment } from './resourceAttachment';

/** A resource to show whole (a tool card's resource link): its text, images described. */
export interface ChatOpenedResource {
  readonly server: string;
  readonly uri: string;
  readonly label: string;
  readonly text: string;
  readonly mimeType?: string;
}

export interface ContextRequestsOptions {
  readonly items: IChatServerItems | undefined;
  readonly attachments: ChatAttachments;
  openResource?(resource: ChatOpenedResource): Promise<void>;
  /** A binary resource a tool result embedded (used as it came, not read from the server). */
  embedded?(server: string, uri: string): EmbeddedBlob | undefined;
}

type ContextHandlers = Pick<WebviewRequestHandlers, 'suggest' | 'complete' | 'usePrompt' | 'attachResource' | 'openResource'>;

/**
 * The panel's requests about servers' prompts and resources: suggestions after `/` and `@`,
 * completions for an argument, a prompt read into the message box, a resource attached or opened.
 * A server's failure comes back to the panel as its message.
 */
export function contextRequests(o: ContextRequestsOptions): ContextHandlers {
  const items = o.items && new ChatServerItems(o.items);
  const need = (): ChatServerItems => {
    if (!items) throw new ChatRequestError("Servers' prompts and resources are not available here.");
    return items;
  };
  const embedded = (server: string, uri: string, name: string | undefined): ChatAttachment | undefined => {
    const blob = o.embedded?.(server, uri);
    return blob && resourceAttachment(server, uri, name ?? lastSegment(uri), { contents: [blob] });
  };
  return {
    suggest: async ({ trigger, query }) => ({ items: items?.suggest(trigger, query) ?? [] }),
    complete: async ({ server, ref, argument, context }) => fromServer(() => need().complete(server, ref, argument, context ?? {})),
    usePrompt: async ({ server, name, arguments: args }) => {
      const { text, attachments } = await fromServer(() => need().prompt(server, name, args));
      for (const a of attachments) await o.attachments.add(a);
      return { text };
    },
    attachResource: async ({ server, uri, template, name }) => {
      const kept = uri !== undefined && !template ? embedded(server, uri, name) : undefined;
      await o.attachments.add(kept ?? (await fromServer(() => need().resource(server, { ...(uri !== undefined ? { uri } : {}), ...(template ? { template } : {}), ...(name ? { name } : {}) }))));
    },
    openResource: async ({ server, uri, name }) => {
      if (!o.openResource) throw new ChatRequestError('Opening a resource is not available here.');
      const a = embedded(server, uri, name) ?? (await fromServer(() => need().resource(server, { uri, ...(name ? { name } : {}) })));
      const images = (a.images ?? []).map((i) => `[${i.summary}]`);
      await o.openResource({ server, uri, label: a.label, text: [a.text, ...images].filter(Boolean).join('\n\n'), ...(a.mimeType ? { mimeType: a.mimeType } : {}) });
    },
  };
}

/** A server's (or the harness's) failure, as the message the panel shows. */
async function fromServer<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ChatRequestError) throw err;
    throw new ChatRequestError(errorMessage(err));
  }
}
