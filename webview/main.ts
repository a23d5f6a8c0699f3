// The chat panel's browser bundle. It talks to the extension only through ChatClient and the
// message map in src/shared.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-progress-ring/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import { ChatClient, type IVsCodeApi } from './ChatClient';
import { AskCard } from './components/AskCard';
import { ChatApp } from './components/ChatApp';
import { ChatHeader } from './components/ChatHeader';
import { ChatItemView } from './components/ChatItemView';
import { Composer } from './components/Composer';
import { EmptyChat } from './components/EmptyChat';
import { ContextBudget } from './components/ContextBudget';
import { KeptResult } from './components/KeptResult';
import { ToolCard } from './components/ToolCard';

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

// The page itself: no margins, the app fills the view. A constructed sheet needs no 'unsafe-inline'.
const page = new CSSStyleSheet();
page.replaceSync('html, body { margin: 0; padding: 0; height: 100%; overflow: hidden; background: var(--vscode-sideBar-background, var(--vscode-editor-background)); }');
document.adoptedStyleSheets = [...document.adoptedStyleSheets, page];

const client = new ChatClient(acquireVsCodeApi());
const app = document.createElement('mcp-chat-app') as ChatApp;
app.client = client;
document.body.append(app);
client.start(window);
