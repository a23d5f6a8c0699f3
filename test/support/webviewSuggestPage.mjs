// The message box with its suggestions and prompt form, alone in a page, for a browser test: the
// components are the product's; the host is the test, answering each `chat-query` through
// `window.hostAnswer` (a function the test exposes) and recording each `chat-request`.
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { Composer } from '../../webview/components/Composer';
import { PromptForm } from '../../webview/components/PromptForm';
import { Suggest } from '../../webview/components/Suggest';

customElements.define('mcp-composer', Composer);
customElements.define('mcp-suggest', Suggest);
customElements.define('mcp-prompt-form', PromptForm);

window.requests = [];
document.addEventListener('chat-query', (e) => {
  e.preventDefault();
  e.stopPropagation();
  window.hostAnswer(e.detail.request).then((answer) => e.detail.reply(answer));
});
document.addEventListener('chat-request', (e) => window.requests.push(e.detail));
document.body.append(document.createElement('mcp-composer'));
