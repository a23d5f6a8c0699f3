import { errorMessage } from '../base/errors';
import type { HookEventName } from '../config/hookTypes';
import type { McpContentBlock } from '../tools/types';
import type { HookCommandRun } from './runHookCommand';

/** What one hook run said, read as Claude Code reads it. */
export interface HookResponse {
  /** `allow`, `deny`, `ask` (PreToolUse); `block` (PostToolUse: a note; UserPromptSubmit: the prompt is refused). */
  readonly decision?: 'allow' | 'deny' | 'ask' | 'block';
  /** Why: the model reads it for a deny or a PostToolUse block, the user for a blocked prompt. */
  readonly reason?: string;
  /** PreToolUse: the arguments to use instead. */
  readonly updatedInput?: Record<string, unknown>;
  /** Text for the model (`additionalContext`; a prompt or session hook's plain stdout). */
  readonly context?: string;
  /** PostToolUse: the result to give instead (`updatedMCPToolOutput`), as text blocks. */
  readonly replacement?: readonly McpContentBlock[];
  /** `continue: false`: stop after this, with `stopReason` for the user. */
  readonly stop?: { readonly reason?: string };
  /** `systemMessage`: shown to the user. */
  readonly systemMessage?: string;
}

export type HookFailureKind = 'timeout' | 'crash' | 'malformed' | 'spawn' | 'cancelled';

/** A run read: what it said, or why it failed (the hook is at fault, not the call). */
export type HookReading = { readonly ok: true; readonly response: HookResponse } | { readonly ok: false; readonly kind: HookFailureKind; readonly problem: string };

const MAX_REASON_CHARS = 4000;

/**
 * Reads a hook command's run with Claude Code's exit-code meaning: 0 = go on (stdout may be a
 * JSON object with a decision), 2 = block with stderr as the reason, anything else (or a signal,
 * a timeout, output past the cap) = the hook failed. stdout that starts like JSON must be a valid
 * JSON object with fields of the documented types, or the run is `malformed`; other stdout is
 * plain text (context for UserPromptSubmit and SessionStart, ignored elsewhere).
 */
export function readHookRun(event: HookEventName, run: HookCommandRun, timeoutSec: number): HookReading {
  if (run.spawnError !== undefined) return { ok: false, kind: 'spawn', problem: `could not be started: ${run.spawnError}` };
  if (run.cancelled) return { ok: false, kind: 'cancelled', problem: 'was stopped with the call' };
  if (run.timedOut) return { ok: false, kind: 'timeout', problem: `timed out after ${timeoutSec} s and was killed` };
  if (run.overflow) return { ok: false, kind: 'malformed', problem: `wrote more ${run.overflow} than is read (4 MiB) and was killed` };
  if (run.exitCode === null) return { ok: false, kind: 'crash', problem: `was killed by ${run.signal ?? 'a signal'}${stderrTail(run)}` };
  if (run.exitCode === 2) return { ok: true, response: exitTwo(event, clip(run.stderr.trim()) || 'the hook exited with code 2') };
  if (run.exitCode !== 0) return { ok: false, kind: 'crash', problem: `exited with code ${run.exitCode}${stderrTail(run)}` };
  const text = run.stdout.trim();
  if (text === '') return { ok: true, response: {} };
  if (!text.startsWith('{') && !text.startsWith('[')) {
    const plain = event === 'UserPromptSubmit' || event === 'SessionStart';
    return { ok: true, response: plain ? { context: clip(text) } : {} };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return malformed(`printed output that starts like JSON but is not valid JSON (${errorMessage(err)})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return malformed('printed a JSON array; expected a JSON object');
  return readJsonOutput(event, value as Record<string, unknown>);
}

function exitTwo(event: HookEventName, stderr: string): HookResponse {
  switch (event) {
    case 'PreToolUse':
      return { decision: 'deny', reason: stderr };
    case 'PostToolUse':
    case 'UserPromptSubmit':
      return { decision: 'block', reason: stderr };
    case 'SessionStart':
      return { systemMessage: stderr };
  }
}

const DECISIONS: Record<HookEventName, Readonly<Record<string, 'allow' | 'deny' | 'block'>>> = {
  // `approve` and `block` are the older top-level spelling of allow and deny.
  PreToolUse: { approve: 'allow', block: 'deny' },
  PostToolUse: { block: 'block' },
  UserPromptSubmit: { block: 'block' },
  SessionStart: {},
};

function readJsonOutput(event: HookEventName, json: Record<string, unknown>): HookReading {
  const problems: string[] = [];
  const text = (key: string, where: Record<string, unknown> = json, label = key): string | undefined => {
    const v = where[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return clip(v);
    problems.push(`"${label}" must be a string, got ${kindOf(v)}`);
    return undefined;
  };
  const out: { -readonly [K in keyof HookResponse]: HookResponse[K] } = {};
  if (json.continue !== undefined && typeof json.continue !== 'boolean') problems.push(`"continue" must be true or false, got ${kindOf(json.continue)}`);
  if (json.suppressOutput !== undefined && typeof json.suppressOutput !== 'boolean') problems.push(`"suppressOutput" must be true or false, got ${kindOf(json.suppressOutput)}`);
  const stopReason = text('stopReason');
  if (json.continue === false) out.stop = stopReason !== undefined ? { reason: stopReason } : {};
  const systemMessage = text('systemMessage');
  if (systemMessage !== undefined) out.systemMessage = systemMessage;
  const reason = text('reason');
  if (json.decision !== undefined && json.decision !== null) {
    const allowed = DECISIONS[event];
    const decision = typeof json.decision === 'string' ? allowed[json.decision] : undefined;
    if (decision === undefined) problems.push(`"decision" must be ${Object.keys(allowed).map((k) => `"${k}"`).join(' or ') || 'absent'} for ${event}, got ${JSON.stringify(json.decision)}`);
    else out.decision = decision;
  }
  if (reason !== undefined) out.reason = reason;
  const specific = json.hookSpecificOutput;
  if (specific !== undefined && specific !== null) {
    if (typeof specific !== 'object' || Array.isArray(specific)) problems.push(`"hookSpecificOutput" must be an object, got ${kindOf(specific)}`);
    else readSpecific(event, specific as Record<string, unknown>, out, problems, text);
  }
  return problems.length ? malformed(`printed JSON that is not a valid ${event} answer: ${problems.join('; ')}`) : { ok: true, response: out };
}

function readSpecific(
  event: HookEventName,
  specific: Record<string, unknown>,
  out: { -readonly [K in keyof HookResponse]: HookResponse[K] },
  problems: string[],
  text: (key: string, where: Record<string, unknown>, label: string) => string | undefined,
): void {
  const name = specific.hookEventName;
  if (name !== undefined && name !== event) problems.push(`"hookSpecificOutput.hookEventName" is ${JSON.stringify(name)}, but this hook ran for ${event}`);
  const context = text('additionalContext', specific, 'hookSpecificOutput.additionalContext');
  if (context !== undefined) out.context = context;
  if (event === 'PreToolUse') {
    const decision = specific.permissionDecision;
    if (decision === 'allow' || decision === 'deny' || decision === 'ask') out.decision = decision;
    else if (decision !== undefined && decision !== null) problems.push(`"hookSpecificOutput.permissionDecision" must be "allow", "deny" or "ask", got ${JSON.stringify(decision)}`);
    const reason = text('permissionDecisionReason', specific, 'hookSpecificOutput.permissionDecisionReason');
    if (reason !== undefined) out.reason = reason;
    const input = specific.updatedInput;
    if (input !== undefined && input !== null) {
      if (typeof input === 'object' && !Array.isArray(input)) out.updatedInput = input as Record<string, unknown>;
      else problems.push(`"hookSpecificOutput.updatedInput" must be an object of arguments, got ${kindOf(input)}`);
    }
  }
  if (event === 'PostToolUse' && specific.updatedMCPToolOutput !== undefined && specific.updatedMCPToolOutput !== null) {
    const blocks = toTextBlocks(specific.updatedMCPToolOutput);
    if (blocks) out.replacement = blocks;
    else problems.push('"hookSpecificOutput.updatedMCPToolOutput" must be a string, an array of text content blocks, or { "content": [...] }');
  }
}

/** A replacement result: a string, text blocks, or an object with `content` of text blocks. */
function toTextBlocks(value: unknown): McpContentBlock[] | undefined {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  const list = Array.isArray(value) ? value : typeof value === 'object' && value !== null && Array.isArray((value as { content?: unknown }).content) ? (value as { content: unknown[] }).content : undefined;
  if (!list) return undefined;
  const blocks: McpContentBlock[] = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null || (item as { type?: unknown }).type !== 'text' || typeof (item as { text?: unknown }).text !== 'string') return undefined;
    blocks.push({ type: 'text', text: (item as { text: string }).text });
  }
  return blocks;
}

function malformed(problem: string): HookReading {
  return { ok: false, kind: 'malformed', problem };
}

function stderrTail(run: HookCommandRun): string {
  const line = run.stderr.trim().split('\n').slice(-3).join(' / ');
  return line ? `: ${clip(line, 500)}` : '';
}

function clip(text: string, max = MAX_REASON_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
