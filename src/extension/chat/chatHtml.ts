import { randomBytes } from 'node:crypto';
import type * as vscode from 'vscode';
import { INITIAL_STATE_ID, type HostMessage } from '../../shared/chatProtocol';

/**
 * `message` as the text of a `<script type="application/json">`: JSON with `<`, `>` and `&`
 * written as escapes, so no text in it (a model's `</script>`, say) can end the element early.
 */
export function embeddedJson(message: HostMessage): string {
  return JSON.stringify(message).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * The page: one module script from the bundle, nothing inline, a policy that allows only that. The
 * module's own imports (the highlighting grammars, fetched on demand from the same folder) carry
 * its nonce, so the policy needs no source list for scripts. With `apps`, the page may also load
 * the MCP Apps host script (`appHost`, on first use, with the same nonce) and frame pages of
 * `frameOrigin` (the apps' sandbox) and nothing else. With `initial`, the page carries its first
 * state as data (a script element that is never run), so a reopened chat shows its history as soon
 * as the bundle runs instead of after a round trip to the host.
 */
export function chatHtml(webview: vscode.Webview, script: vscode.Uri, apps?: { frameOrigin?: string; appHost: vscode.Uri }, initial?: string): string {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    ...(apps?.frameOrigin ? [`frame-src ${apps.frameOrigin}`] : []),
  ].join('; ');
  const appHost = apps?.frameOrigin ? ` data-app-host="${webview.asWebviewUri(apps.appHost).toString()}"` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>MCP Chat</title>
</head>
<body>
${initial !== undefined ? `<script type="application/json" id="${INITIAL_STATE_ID}">${initial}</script>\n` : ''}<script type="module" nonce="${nonce}" src="${webview.asWebviewUri(script).toString()}"${appHost}></script>
</body>
</html>`;
}
