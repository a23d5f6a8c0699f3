import * as vscode from 'vscode';
import { parseServerPolicy, type McpServerPolicyState } from '../core';
import { SETTINGS_SECTION } from './ConfigFiles';

/** The setting holding the organisation's server policy; `application` scope, so no workspace can set it. */
export const SERVER_POLICY_KEY = 'serverPolicy';
/** How messages name where the policy came from. */
export const SERVER_POLICY_SOURCE = `user settings (${SETTINGS_SECTION}.${SERVER_POLICY_KEY})`;

/**
 * The policy from user settings, or undefined when none is set. Only the user (application)
 * value counts: VS Code keeps workspaces from setting an `application` setting, and a value that
 * got into a workspace file anyway is not read. A value that does not parse fails closed.
 */
export function readServerPolicy(): McpServerPolicyState | undefined {
  const value = vscode.workspace.getConfiguration(SETTINGS_SECTION).inspect<unknown>(SERVER_POLICY_KEY)?.globalValue;
  if (value === undefined || value === null) return undefined;
  return parseServerPolicy(value, SERVER_POLICY_SOURCE);
}
