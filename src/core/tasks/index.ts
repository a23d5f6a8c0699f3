/** Tasks (`io.modelcontextprotocol/tasks`): tool calls that come back as tasks, and the host's own. */
export { TASKS_EXTENSION, TASK_STATUSES, isTerminalStatus } from './taskTypes';
export type { FinishedTask, HarnessTask, ITaskStore, McpTaskKind, McpTaskOrigin, McpTaskState, McpTaskStatus, StoredTask } from './taskTypes';
export { FileTaskStore, storedTask } from './FileTaskStore';
export { nextPollMs, DEFAULT_POLL_MS, MIN_POLL_MS, MAX_POLL_MS } from './McpTaskFollow';
export { formatTaskAge, describeTask } from './describeTask';
