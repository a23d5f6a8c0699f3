/** The permission gate: a pure policy, pinning, poisoning scan, the gate that asks, the audit log. */
export type * from './types';
export { evaluatePermission, approvalKey, alwaysAsks } from './evaluatePermission';
export type { PermissionRules, RememberedApproval, RememberedChoices, PermissionInput, PolicyResult } from './evaluatePermission';
export { matchToolPattern, findMatchingPattern } from './matchToolPattern';
export { pinTool, stableStringify, diffDefinitions } from './toolPin';
export type { ToolPin } from './toolPin';
export { scanText, scanTool, makeHiddenVisible, hasHiddenCharacters } from './scanPoisoning';
export { PermissionGate } from './PermissionGate';
export type { PermissionCheck, PermissionCheckOptions, IToolCallGate, PermissionGateOptions } from './PermissionGate';
export { AuditLog } from './AuditLog';
export type { AuditStart, AuditOutcome, AuditLine, AuditLogOptions, IAuditSink, AuditClient, AuditMethod } from './AuditLog';
export { redactSecrets, REDACTED } from './redactSecrets';
