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
  /** `call --detach`: return once the call became a task, printing its id; the task keeps running. */
  readonly detach?: boolean;
}

/** What a command may do before the harness closes on Ctrl-C (a call cancels its task first). */
export interface CliInterrupts {
  onInterrupt(before: () => Promise<void>): void;
}
