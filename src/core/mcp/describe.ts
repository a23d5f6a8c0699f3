import type { McpLogEntry } from './McpServerSnapshot';

/** An MCP logging level as one of ours. */
export function mapLogLevel(level: string): McpLogEntry['level'] {
  if (level === 'debug') return 'debug';
  if (level === 'info' || level === 'notice') return 'info';
  if (level === 'warning') return 'warn';
  return 'error';
}

/** Milliseconds as seconds for messages: `30 s`, `1.5 s`. */
export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Cuts `text` to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
