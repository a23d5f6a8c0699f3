import { hostMessage, webviewMessage, WEBVIEW_REQUESTS, type HostMessage, type WebviewMessage, type WebviewRequestAnswer, type WebviewRequestType } from './chatProtocol';
import { fail, ok, type Result } from './result';
import type { Check } from './shape';

export { MAX_WEBVIEW_TEXT } from './chatProtocol';

/** Checks a message from the webview. Anything else (unknown type, wrong field) is an error naming the field. */
export function parseWebviewMessage(data: unknown): Result<WebviewMessage> {
  return parse(webviewMessage, data);
}

/** Checks a message from the extension host. */
export function parseHostMessage(data: unknown): Result<HostMessage> {
  return parse(hostMessage, data);
}

/** Checks the value of a `response` against the answer type of the request it answers. */
export function parseAnswer<K extends WebviewRequestType>(type: K, value: unknown): Result<WebviewRequestAnswer<K>> {
  return parse(WEBVIEW_REQUESTS[type].answer as Check<WebviewRequestAnswer<K>>, value);
}

function parse<T>(check: Check<T>, data: unknown): Result<T> {
  const problem = check(data, 'message');
  return problem ? fail(problem) : ok(data as T);
}
