import { css } from 'lit';

/** Styles of the list, adopted into the message box's shadow root (this element renders there, so the box can point at its options). */
export const styles = css`
  mcp-suggest {
    display: block;
    position: relative;
  }
  mcp-suggest .suggest-list {
    position: absolute;
    left: 0;
    right: 0;
    bottom: 100%;
    z-index: 10;
    margin: 0 0 2px;
    padding: 2px 0;
    max-height: 40vh;
    overflow-y: auto;
    background: var(--vscode-editorSuggestWidget-background, var(--vscode-editorWidget-background));
    color: var(--vscode-editorSuggestWidget-foreground, var(--vscode-foreground));
    border: 1px solid var(--vscode-editorSuggestWidget-border, var(--vscode-widget-border, transparent));
    border-radius: 3px;
    box-shadow: 0 0 8px 2px var(--vscode-widget-shadow, transparent);
  }
  mcp-suggest [role='option'] {
    display: block;
    padding: 2px 8px;
    cursor: pointer;
  }
  mcp-suggest [role='option'] > span {
    display: block;
    white-space: nowrap;
    overflow: hidden;
    text-overflow: ellipsis;
  }
  mcp-suggest [role='option'][aria-selected='true'] {
    background: var(--vscode-editorSuggestWidget-selectedBackground, var(--vscode-list-activeSelectionBackground));
    color: var(--vscode-editorSuggestWidget-selectedForeground, var(--vscode-list-activeSelectionForeground));
    outline: 1px solid var(--vscode-list-focusOutline, transparent);
    outline-offset: -1px;
  }
  mcp-suggest [role='option'] .detail {
    opacity: 0.8;
    font-size: 0.9em;
  }
  mcp-suggest [role='option'] .label {
    font-weight: 600;
  }
  mcp-suggest .suggest-status {
    margin: 0 0 4px;
  }
`;
