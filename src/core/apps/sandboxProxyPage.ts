/**
 * The sandbox proxy of the MCP Apps double iframe, as the extension's reference hosts build it:
 * the chat frames this page (from a loopback origin, sandboxed without `allow-same-origin`, under
 * the app's content security policy sent as a header), and the page puts the app's HTML in a frame
 * of its own (`srcdoc`, so it inherits that policy). It relays JSON-RPC between the chat and the
 * app and nothing else: from its parent only, to its app only, and back.
 *
 * It speaks the extension's two proxy messages: it announces `sandbox-proxy-ready`, and takes the
 * app from `sandbox-resource-ready` once. The app frame's sandbox is always `allow-scripts` alone,
 * whatever the message asks; its `allow` list holds only the permissions the resource declared.
 */
export const SANDBOX_PROXY_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>MCP App sandbox</title>
<style>html,body{margin:0;padding:0;height:100%;overflow:hidden;background:transparent}iframe{display:block;border:0;width:100%;height:100%;background:transparent}</style>
</head>
<body>
<script>
(() => {
  const FEATURES = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' };
  const parentWindow = window.parent;
  let app;
  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source === parentWindow) {
      if (data && data.method === 'ui/notifications/sandbox-resource-ready') {
        if (app || !data.params || typeof data.params.html !== 'string') return;
        app = document.createElement('iframe');
        app.setAttribute('sandbox', 'allow-scripts');
        const permissions = data.params.permissions || {};
        app.setAttribute('allow', Object.keys(FEATURES).filter((k) => permissions[k]).map((k) => FEATURES[k]).join('; '));
        app.setAttribute('title', 'MCP App');
        app.srcdoc = data.params.html;
        document.body.appendChild(app);
        return;
      }
      if (app && app.contentWindow) app.contentWindow.postMessage(data, '*');
    } else if (app && event.source === app.contentWindow) {
      parentWindow.postMessage(data, '*');
    }
  });
  parentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, '*');
})();
</script>
</body>
</html>
`;
