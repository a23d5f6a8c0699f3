/** Thrown for bad usage; printed on stderr with exit code 2. */
export class UsageError extends Error {}

/** What every command shares. */
export interface CliOptions {
  readonly workspace: string;
  readonly configFiles: string[];
  readonly json: boolean;
  readonly timeoutMs?: number;
  readonly inheritEnv: boolean;
  readonly trace: boolean;
  /** `--hooks FILE` (repeatable). */
  readonly hookFiles: string[];
  /** `--claude-hooks`: also run the hooks of the workspace's `.claude/settings.json`. */
  readonly claudeHooks: boolean;
  /** `--policy FILE` or `MCP_HARNESS_POLICY`: the organisation's server policy. */
  readonly policyFile?: string;
}
