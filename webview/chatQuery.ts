import type { WebviewRequest, WebviewRequestAnswer, WebviewRequestType } from '../src/shared/chatProtocol';
import type { Result } from '../src/shared/result';

/** What a `chat-query` event carries: the request, and where its answer goes. */
export interface ChatQueryDetail {
  readonly request: WebviewRequest;
  reply(answer: Result<unknown>): void;
}

/**
 * A request whose answer the child needs (suggestions, completions, a prompt's text): the app
 * sends it through its client and hands the answer back. Answers are checked against the
 * request's answer type by the client.
 */
export function chatQuery<K extends WebviewRequestType>(target: EventTarget, request: WebviewRequest & { readonly type: K }): Promise<Result<WebviewRequestAnswer<K>>> {
  return new Promise((resolve) => {
    const detail: ChatQueryDetail = { request, reply: (answer) => resolve(answer as Result<WebviewRequestAnswer<K>>) };
    const handled = !target.dispatchEvent(new CustomEvent('chat-query', { detail, bubbles: true, composed: true, cancelable: true }));
    if (!handled) resolve({ ok: false, error: 'the chat is not ready' });
  });
}
