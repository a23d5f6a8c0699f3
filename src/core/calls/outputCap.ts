import { findMatchingPattern } from '../permissions/toolPattern';
import { DEFAULT_MAX_OUTPUT_CHARS } from '../tools/formatToolResult';
import type { HarnessTool } from '../tools/types';

/** The most a server's `_meta["anthropic/maxResultSizeChars"]` may ask for (Claude Code's ceiling). */
export const MAX_RESULT_SIZE_HINT_CEILING = 500_000;

/** The settings a tool's output cap comes from. */
export interface OutputCapSettings {
  /** The cap for every tool (default {@link DEFAULT_MAX_OUTPUT_CHARS}). */
  readonly maxOutputChars?: number;
  /** Caps by tool pattern (the permission rules' language: `mcp__server__tool`, `mcp__server__*`, a built-in's name). */
  readonly maxOutputCharsPerTool?: Readonly<Record<string, number>>;
}

/**
 * How many characters of `tool`'s result the model reads at once: the user's per-tool setting
 * (its first matching pattern) wins, then the server's hint (at most
 * {@link MAX_RESULT_SIZE_HINT_CEILING}), then the cap for every tool.
 */
export function outputCapFor(tool: HarnessTool, settings: OutputCapSettings): number {
  const perTool = settings.maxOutputCharsPerTool;
  if (perTool) {
    const valid = Object.keys(perTool).filter((p) => isCap(perTool[p]));
    const pattern = findMatchingPattern(valid, { ...(tool.server !== undefined ? { server: tool.server } : {}), name: tool.originalName });
    if (pattern !== undefined) return perTool[pattern]!;
  }
  if (tool.maxResultSizeChars !== undefined) return Math.min(tool.maxResultSizeChars, MAX_RESULT_SIZE_HINT_CEILING);
  return isCap(settings.maxOutputChars) ? settings.maxOutputChars : DEFAULT_MAX_OUTPUT_CHARS;
}

function isCap(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
