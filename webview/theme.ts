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
  /*
   * Token colours. A webview is not given the theme's token colours, so these borrow the colours VS
   * Code defines for values in its debug views (keywords as booleans, strings, numbers, names),
   * which every theme sets for its side bar, high contrast included.
   */
  .hljs-keyword,
  .hljs-selector-tag,
  .hljs-literal,
  .hljs-built_in,
  .hljs-doctag {
    color: var(--vscode-debugTokenExpression-boolean);
  }
  .hljs-string,
  .hljs-regexp,
  .hljs-char,
  .hljs-template-tag,
  .hljs-selector-attr,
  .hljs-selector-pseudo {
    color: var(--vscode-debugTokenExpression-string);
  }
  .hljs-number,
  .hljs-symbol,
  .hljs-bullet,
  .hljs-link {
    color: var(--vscode-debugTokenExpression-number);
  }
  .hljs-title,
  .hljs-section,
  .hljs-selector-id,
  .hljs-selector-class {
    color: var(--vscode-symbolIcon-functionForeground, var(--vscode-debugTokenExpression-name));
  }
  .hljs-type,
  .hljs-title.class_,
  .hljs-name,
  .hljs-tag {
    color: var(--vscode-debugTokenExpression-name);
  }
  .hljs-attr,
  .hljs-attribute,
  .hljs-property,
  .hljs-variable,
  .hljs-template-variable,
  .hljs-params {
    color: var(--vscode-symbolIcon-variableForeground, var(--vscode-foreground));
  }
  .hljs-comment,
  .hljs-quote {
    color: var(--vscode-descriptionForeground);
    font-style: italic;
  }
  .hljs-meta {
    color: var(--vscode-descriptionForeground);
  }
  .hljs-addition {
    color: var(--vscode-charts-green, var(--vscode-debugTokenExpression-number));
  }
  .hljs-deletion {
    color: var(--vscode-debugTokenExpression-error, var(--vscode-errorForeground));
  }
  .hljs-emphasis {
    font-style: italic;
  }
  .hljs-strong {
    font-weight: bold;
  }
`;
