import { css } from 'lit';

/** Colours and fonts come from VS Code's theme variables only, so light, dark and high-contrast themes all apply. */
export const base = css`
  :host {
    font-family: var(--vscode-font-family);
    font-size: var(--vscode-font-size);
    color: var(--vscode-foreground);
  }
  :focus-visible {
    outline: 1px solid var(--vscode-focusBorder);
    outline-offset: -1px;
  }
  pre,
  code {
    font-family: var(--vscode-editor-font-family);
    font-size: var(--vscode-editor-font-size);
  }
  pre {
    margin: 0;
    padding: 6px 8px;
    overflow-x: auto;
    white-space: pre-wrap;
    word-break: break-word;
    background: var(--vscode-textCodeBlock-background);
    border: 1px solid var(--vscode-widget-border, transparent);
    border-radius: 3px;
  }
  .muted {
    color: var(--vscode-descriptionForeground);
  }
  .warning {
    color: var(--vscode-editorWarning-foreground);
  }
  .error {
    color: var(--vscode-errorForeground);
  }
`;

/** Markdown output: code blocks with a copy bar, token colours from the theme's symbol colours. */
export const markdown = css`
  .md > :first-child {
    margin-top: 0;
  }
  .md > :last-child {
    margin-bottom: 0;
  }
  .md a {
    color: var(--vscode-textLink-foreground);
  }
  .md a:hover {
    color: var(--vscode-textLink-activeForeground);
  }
  .md :not(pre) > code {
    background: var(--vscode-textCodeBlock-background);
    padding: 0 3px;
    border-radius: 3px;
  }
  .md blockquote {
    margin: 0;
    padding-left: 8px;
    border-left: 3px solid var(--vscode-textBlockQuote-border);
    background: var(--vscode-textBlockQuote-background);
  }
  .md table {
    border-collapse: collapse;
  }
  .md th,
  .md td {
    border: 1px solid var(--vscode-widget-border, var(--vscode-panel-border));
    padding: 2px 6px;
  }
  .code-block {
    margin: 6px 0;
  }
  /* Code keeps its lines: a long one scrolls sideways instead of wrapping or being cut. */
  .code-block pre {
    white-space: pre;
    word-break: normal;
    overflow-x: auto;
  }
  .code-bar {
    display: flex;
    justify-content: space-between;
    align-items: center;
    font-size: 0.9em;
    color: var(--vscode-descriptionForeground);
  }
  .code-bar .insert,
  .code-bar .copy {
    font: inherit;
    color: var(--vscode-textLink-foreground);
    background: none;
    border: none;
    cursor: pointer;
    padding: 2px 4px;
  }
  .code-bar .insert:hover,
  .code-bar .copy:hover {
    text-decoration: underline;
  }
  .hljs-keyword,
  .hljs-selector-tag,
  .hljs-built_in,
  .hljs-literal {
    color: var(--vscode-symbolIcon-keywordForeground, var(--vscode-editor-foreground));
  }
  .hljs-string,
  .hljs-attr,
  .hljs-regexp,
  .hljs-addition {
    color: var(--vscode-symbolIcon-stringForeground, var(--vscode-editor-foreground));
  }
  .hljs-number,
  .hljs-symbol {
    color: var(--vscode-symbolIcon-numberForeground, var(--vscode-editor-foreground));
  }
  .hljs-comment,
  .hljs-quote,
  .hljs-meta {
    color: var(--vscode-descriptionForeground);
    font-style: italic;
  }
  .hljs-title,
  .hljs-name,
  .hljs-function .hljs-title {
    color: var(--vscode-symbolIcon-functionForeground, var(--vscode-editor-foreground));
  }
  .hljs-type,
  .hljs-class .hljs-title,
  .hljs-variable,
  .hljs-params {
    color: var(--vscode-symbolIcon-variableForeground, var(--vscode-editor-foreground));
  }
  .hljs-deletion {
    color: var(--vscode-errorForeground);
  }
`;
