import { describe, expect, it } from 'vitest';
import { chatHtml, embeddedJson } from '../../../src/extension/chat/chatHtml';
import { INITIAL_STATE_ID, type HostMessage } from '../../../src/shared/chatProtocol';

// Only the URI and CSP parts of a webview are used to build the page.
const webview = { cspSource: 'https://file+.vscode-resource.vscode-cdn.net', asWebviewUri: (u: { path: string }) => ({ toString: () => `https://webview${u.path}` }) };
const script = { path: '/dist/webview/webview.js' };

describe('the chat page', () => {
  const hostile = '</script><script>alert(1)</script> & <!-- <img src=x onerror=alert(2)>';
  const init = { type: 'notice', item: { id: 'n1', kind: 'notice', level: 'info', text: hostile } } as unknown as HostMessage;

  it('carries its first state as JSON that no text in it can break out of', () => {
    const json = embeddedJson(init);
    expect(json).not.toMatch(/[<>&]/);
    expect(JSON.parse(json)).toEqual(init);
    const html = chatHtml(webview as never, script as never, undefined, json);
    const element = new RegExp(`<script type="application/json" id="${INITIAL_STATE_ID}">([^<]*)</script>`).exec(html);
    expect(element).not.toBeNull();
    expect(JSON.parse(element![1]!)).toEqual(init);
    // One element of data, one script that runs: nothing of the state became markup.
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  it('runs only the bundle, under a policy with its nonce', () => {
    const html = chatHtml(webview as never, script as never);
    expect(html).not.toContain(INITIAL_STATE_ID);
    const nonce = /script-src 'nonce-([^']+)'/.exec(html)![1];
    expect(html).toContain(`<script type="module" nonce="${nonce}" src="https://webview/dist/webview/webview.js"></script>`);
    expect(html).toContain("default-src 'none'");
  });
});
