/** The permission gate: a pure policy, pinning, poisoning scan, the gate that asks, the audit log. */
export type * from './types';
export { evaluatePermission, approvalKey, alwaysAsks, patternSubject } from './evaluatePermission';
export type { PermissionRules, RememberedApproval, RememberedChoices, PermissionInput, PolicyResult } from './evaluatePermission';
export { matchToolPattern, findMatchingPattern, patternCoversServer } from './toolPattern';
export type { PatternSubject } from './toolPattern';
export { pinTool, stableStringify, diffDefinitions } from '../tools/toolPin';
export type { ToolPin } from '../tools/toolPin';
export { scanText, scanTool, makeHiddenVisible, hasHiddenCharacters } from './scanPoisoning';
export { PermissionGate } from './PermissionGate';
export type { PermissionGateOptions, RememberedApprovalEntry } from './PermissionGate';
export { AuditLog } from './AuditLog';
export type { AuditStart, AuditOutcome, AuditLine, AuditLogOptions, IAuditSink, AuditClient, AuditMethod, AuditHookEntry } from './AuditLog';
export { redactSecrets, REDACTED } from './redactSecrets';
