import type { CallToolResult } from '@modelcontextprotocol/client';
import type { McpClientTasks } from './McpClientTasks';
import type { McpTaskClient } from './McpTaskClient';
import type { McpCreatedTask, McpTaskProgress } from './McpTaskWire';
import type { HarnessTask, McpTaskOrigin } from './taskTypes';

/** For a call that may become a task: where it came from, whether to wait for it, and its states. */
export interface McpTaskCallContext {
  readonly origin?: McpTaskOrigin;
  /** Return as soon as the call became a task; it keeps running, followed in the background. */
  readonly detach?: boolean;
  /** The task's state, when the call became one and at each change. */
  onTask?(task: HarnessTask): void;
}

/** A tool call that came back as a task, as a session hands it over. */
export interface McpTaskCall {
  readonly server: string;
  /** The tool's own name on the server, and what to show for it. */
  readonly tool: string;
  readonly title: string;
  readonly created: McpCreatedTask;
  /** The server's task operations now (a reconnect gives new ones). */
  client(signal: AbortSignal): Promise<McpTaskClient>;
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
  onProgress?(progress: McpTaskProgress): void;
  readonly context?: McpTaskCallContext;
}

/** What each connection needs of the harness's tasks: following tool tasks, and the host's own tasks per session. */
export interface IMcpTaskHost {
  follow(call: McpTaskCall): Promise<CallToolResult>;
  /** A new set of the host's own tasks for a session of `server` (disposed with the session). */
  clientTasks(server: string): McpClientTasks;
}
