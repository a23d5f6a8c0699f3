import type { LoggingLevel, Tool } from '@modelcontextprotocol/client';
import type { IMcpAuthHost } from './auth/types';
import type { HookDefinition, HookUserEntries, IMcpInputResolver, McpConfigError, McpDiscoveryOptions, McpProvidedServers, McpServerDefinition, McpUserServers } from './config';
import type { McpServerPolicyState } from './config/serverPolicy';
import type { CallProgress, ToolCallOptions } from './calls/types';
import type { IMcpClock, McpConnectionOptions } from './mcp/McpConnection';
import type { IMcpClientHandlers } from './mcp/McpClientHandlers';
import type { ServerAsksOptions } from './requests/ServerAsks';
import type { McpConfigDiff } from './mcp/McpServerManager';
import type { McpConnectionStateKind, McpServerSnapshot } from './mcp/McpServerSnapshot';
import type { ITaskStore } from './tasks/taskTypes';
export type { HarnessCallErrorKind, HarnessCallResult } from './calls/types';
export type { HarnessTool } from './tools/types';

/** Everything a harness can be told. Only the config locations are commonly needed. */
export interface HarnessOptions {
  /** Folder whose `.vscode/mcp.json`, `.mcp.json` and `.harness/mcp.json` are read. */
  readonly workspaceFolder?: string;
  /** Several folders (multi-root); used instead of `workspaceFolder` when given. */
  readonly workspaceFolders?: readonly string[];
  /** Further config files, highest precedence first. */
  readonly configFiles?: readonly string[];
  /** Entries the host holds itself (e.g. editor settings); after the files. */
  readonly userServers?: McpUserServers;
  /** Servers that providers (other extensions) give, by their namespaced names; after the user's. */
  readonly providedServers?: readonly McpProvidedServers[];
  /**
   * Also load the servers other agents configured (VS Code's user `mcp.json`, Claude Code's
   * `~/.claude.json`, Claude Desktop, Cursor), last. `true` reads this machine's defaults. They
   * pass `checkStart` like every other server: a host that asks before starting a workspace's
   * servers asks for these too.
   */
  readonly discover?: boolean | McpDiscoveryOptions;
  /** Environment for variables and servers (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Give stdio servers the whole environment instead of the safe subset. */
  readonly inheritEnv?: boolean;
  readonly inputResolver?: IMcpInputResolver;
  /** Answers to server requests (elicitation, sampling, roots). Roots default to the workspace folders. */
  readonly handlers?: IMcpClientHandlers;
  /**
   * The organisation's server policy (see `parseServerPolicy`, `loadServerPolicyFile`): servers
   * outside it are listed but never started. A broken policy (`ok: false`) lets no server start.
   */
  readonly serverPolicy?: McpServerPolicyState;
  /**
   * Questions servers ask (elicitation forms and pages, sampling): who puts them to the person,
   * how a page is opened, and the model and rules for sampling. Declares exactly those
   * capabilities; `handlers` given explicitly take precedence.
   */
  readonly asks?: ServerAsksOptions;
  /** Gate for starting a server; a returned string is why it may not start. */
  checkStart?(definition: McpServerDefinition): Promise<string | undefined>;
  readonly startupTimeoutMs?: number;
  readonly toolTimeoutMs?: number;
  readonly maxTotalTimeoutMs?: number;
  readonly maxOutputChars?: number;
  /** Output caps by tool pattern (`mcp__server__tool`, `mcp__server__*`, a built-in's name); they win over a server's hint. */
  readonly maxOutputCharsPerTool?: Readonly<Record<string, number>>;
  /**
   * Waits before each reconnect attempt after a running server drops (default 1 s, 2 s, 4 s). stdio
   * servers give up after that many attempts; HTTP and SSE servers keep trying, doubling the wait.
   */
  readonly reconnectDelaysMs?: readonly number[];
  /** Longest wait between reconnect attempts of HTTP and SSE servers (default 30 s). */
  readonly reconnectMaxDelayMs?: number;
  /** Uptime after which a server that drops gets its stdio reconnect attempts back (default 30 s). */
  readonly reconnectStableAfterMs?: number;
  /** Clock and timers for reconnect backoff (default: the system's). */
  readonly clock?: IMcpClock;
  /** Largest single message a stdio server may write (default 64 MiB); a bigger one ends that connection. */
  readonly maxMessageBytes?: number;
  readonly shutdownGraceMs?: number;
  /**
   * Makes each server session's transports (default: a supervised process for stdio, Streamable
   * HTTP with its fallback to SSE). A host whose servers live in its own process passes linked
   * in-memory pairs.
   */
  readonly createTransports?: McpConnectionOptions['createTransports'];
  /** The level a server's own log notifications should start at (sent to 2025-era servers as `logging/setLevel`). */
  logLevel?(server: string): LoggingLevel | undefined;
  /** Whether to log a server's JSON-RPC traffic (checked per message). */
  traceEnabled?(server: string): boolean;
  /**
   * OAuth sign-in for HTTP servers: confirmation, the redirect, and where tokens live. Without it
   * a server that asks for a sign-in is in error, with advice about an Authorization header.
   */
  readonly authHost?: IMcpAuthHost;
  /** Start servers when the configuration is applied (default true). */
  readonly autoStart?: boolean;
  /** The launcher sandboxed stdio servers run under (default: `sandbox-launcher.mjs` beside the bundle). */
  readonly sandboxLauncher?: string;
  /** Hooks run around every call (see `HarnessHookOptions`); `.harness/hooks.json` of each folder is always read. */
  readonly hooks?: HarnessHookOptions;
  /**
   * Where tool calls that came back as tasks are kept while they run (VS Code's workspace state,
   * a `FileTaskStore`), so `resumeTasks()` picks them up after a restart. Without it they are
   * followed in memory only.
   */
  readonly taskStore?: ITaskStore;
}

/**
 * Where hooks come from besides each workspace folder's `.harness/hooks.json`, and which may run.
 * Hooks are Claude Code's format; they run in the pipeline of every call (PreToolUse, PostToolUse)
 * and, when a chat asks, for its prompts and sessions (UserPromptSubmit, SessionStart).
 */
export interface HarnessHookOptions {
  /** The user's own hooks (an editor setting): a map of events, as a setting holds it. */
  readonly user?: HookUserEntries;
  /** Files of the user's own (the CLI's user file); a missing one is skipped. */
  readonly userFiles?: readonly string[];
  /** Files named explicitly; a missing one is a config error. */
  readonly files?: readonly string[];
  /** Also read the `hooks` of each folder's `.claude/settings.json` (never written). */
  readonly claudeSettings?: boolean;
  /** A host's own hooks, run before the others. */
  readonly definitions?: readonly HookDefinition[];
  /**
   * Why a hook may not run now (a workspace's hook the user has not approved, an untrusted
   * workspace), or undefined when it may. Without it every hook runs.
   */
  permit?(hook: HookDefinition): string | undefined;
}

/** A server as the library reports it: plain data, `state` a string. */
export interface HarnessServer {
  readonly name: string;
  readonly state: McpConnectionStateKind;
  readonly transport: McpServerSnapshot['transport'];
  readonly tools: readonly Tool[];
  /** Why the server is not running (error, blocked, reconnecting), when it is not. */
  readonly error?: string;
  readonly serverInfo?: McpServerSnapshot['serverInfo'];
  readonly protocolVersion?: string;
  readonly origin: McpServerDefinition['origin'];
  readonly restartCount: number;
  readonly stderrTail: readonly string[];
}

/** Options of `callTool`: the pipeline's, plus progress as a callback. */
export interface HarnessCallOptions extends Omit<ToolCallOptions, 'callId'> {
  onProgress?(progress: CallProgress): void;
}

export interface HarnessApplyResult extends McpConfigDiff {
  readonly configErrors: readonly McpConfigError[];
}
