// The chat panel's browser bundle. It talks to the extension only through ChatClient and the
// message map in src/shared.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import { INITIAL_STATE_ID } from '../src/shared/chatProtocol';
import { ChatClient, type IVsCodeApi } from './ChatClient';
import { AskCard } from './components/AskCard';
import { ChatApp } from './components/ChatApp';
import { ChatHeader } from './components/ChatHeader';
import { ChatItemView } from './components/ChatItemView';
import { Composer } from './components/Composer';
import { EmptyChat } from './components/EmptyChat';
import { ContextBudget } from './components/ContextBudget';
import { KeptResult } from './components/KeptResult';
import { PromptForm } from './components/PromptForm';
import { ResourceLinks } from './components/ResourceLinks';
import { Suggest } from './components/Suggest';
import { ToolCard } from './components/ToolCard';
import { AppFrame } from './components/apps/AppFrame';

declare function acquireVsCodeApi(): IVsCodeApi;

customElements.define('mcp-chat-app', ChatApp);
customElements.define('mcp-chat-header', ChatHeader);
customElements.define('mcp-chat-item', ChatItemView);
customElements.define('mcp-tool-card', ToolCard);
customElements.define('mcp-composer', Composer);
customElements.define('mcp-empty-chat', EmptyChat);
customElements.define('mcp-context-budget', ContextBudget);
customElements.define('mcp-kept-result', KeptResult);
customElements.define('mcp-ask-card', AskCard);
customElements.define('mcp-app-frame', AppFrame);
customElements.define('mcp-suggest', Suggest);
customElements.define('mcp-prompt-form', PromptForm);
customElements.define('mcp-resource-links', ResourceLinks);

// The page itself: no margins, the app fills the view. A constructed sheet needs no 'unsafe-inline'.
const page = new CSSStyleSheet();
page.replaceSync(
  [
    'html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; background: var(--vscode-sideBar-background, var(--vscode-editor-background)); }',
    // Light High Contrast defines no section-header colours, and the toolkit's collapsible falls
    // back to dark-theme ones: its title ("Arguments", "Result") would be black on black, or pale
    // grey on white.
    'body.vscode-high-contrast-light { --vscode-sideBarSectionHeader-background: transparent; --vscode-sideBarTitle-foreground: var(--vscode-foreground); }',
  ].join('\n'),
);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, page];

const client = new ChatClient(acquireVsCodeApi());
const app = document.createElement('mcp-chat-app') as ChatApp;
app.client = client;
document.body.append(app);
// The state the page was made with, shown before any message arrives (the host sends it again only if it changed).
const initial = document.getElementById(INITIAL_STATE_ID)?.textContent;
if (initial) {
  try {
    client.receive(JSON.parse(initial));
  } catch (err) {
    console.warn(`chat: the page's first state could not be read: ${err}`);
  }
}
// Only the host's messages count: apps in the cards post from their own (opaque) origins.
client.start(window, window.origin);
