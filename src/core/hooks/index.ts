/** Hooks: commands run around tool calls and chat events, in Claude Code's format. */
export type { HookDefinition } from '../config/hookTypes';
export { HookRunner } from './HookRunner';
export type { HookRunnerOptions, HookRunRecord, HookSnapshot } from './HookRunner';
export { hookLabel } from './foldHookRuns';
export type { ChatPromptVerdict, ChatSessionVerdict } from './foldHookRuns';
export { hookToolName, matchesToolHook, matchesValue } from './hookMatcher';
export type { HookToolSubject } from './hookMatcher';
export { readHookRun } from './readHookRun';
export type { HookReading, HookResponse, HookFailureKind } from './readHookRun';
export { runHookCommand } from './runHookCommand';
export type { HookCommandRun, HookCommandOptions } from './runHookCommand';
export { restoreRedacted } from './hookInput';
export { HookApprovals, hookApprovalKey, HOOK_AWAITING_APPROVAL, HOOK_NOT_TRUSTED } from './HookApprovals';
export type { IHookApprovalStore } from './HookApprovals';
