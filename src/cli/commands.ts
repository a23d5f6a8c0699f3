import { formatConfigError, serverPolicyFingerprint, type McpHarness, type ToolCallOutcome } from '../core';
import { renderHooks, terminalDecider } from './cliHooks';
import type { CliInterrupts, CliOptions } from './CliOptions';
import { CliTaskReporter } from './tasks';
import { oneLine, renderTable } from './table';

/** `list`: one row per server, then config errors. Exit 0 even when servers failed. */
export async function runList(harness: McpHarness, options: CliOptions): Promise<number> {
  const servers = harness.servers();
  const errors = harness.configErrors().map((e) => ({ ...e, text: formatConfigError(e, options.workspace) }));
  if (options.json) {
    const rows = servers.map((s) => ({
      name: s.name,
      transport: s.transport ?? null,
      state: s.state,
      toolCount: s.tools.length,
      tools: s.tools.map((t) => t.name),
      error: s.error ?? null,
      serverInfo: s.serverInfo ?? null,
      protocolVersion: s.protocolVersion ?? null,
      origin: s.origin,
      // What an organisation's server policy names this entry by (`{"fingerprint": ...}`).
      fingerprint: serverPolicyFingerprint(harness.snapshot(s.name)!.definition),
    }));
    process.stdout.write(JSON.stringify({ servers: rows, configErrors: errors }, null, 2) + '\n');
    return 0;
  }
  if (servers.length === 0) {
    process.stdout.write(`No MCP servers configured in ${options.workspace} (.vscode/mcp.json, .mcp.json, .harness/mcp.json).\n`);
  } else {
    const rows = servers.map((s) => [s.name, s.transport ?? '-', s.state, String(s.tools.length), oneLine(s.error)]);
    process.stdout.write(renderTable(['NAME', 'TRANSPORT', 'STATE', 'TOOLS', 'ERROR'], rows) + '\n');
  }
  printConfigErrors(errors.map((e) => e.text));
  return 0;
}

/** `tools`: every callable tool by exposed name. */
export async function runTools(harness: McpHarness, options: CliOptions): Promise<number> {
  const tools = harness.tools();
  if (options.json) {
    process.stdout.write(JSON.stringify({ tools }, null, 2) + '\n');
    return 0;
  }
  const rows = tools.map((t) => [t.name, t.server ?? '(built-in)', oneLine(t.description, 80)]);
  process.stdout.write((rows.length ? renderTable(['TOOL', 'SERVER', 'DESCRIPTION'], rows) : 'No tools available.') + '\n');
  printConfigErrors(harness.configErrors().map((e) => formatConfigError(e, options.workspace)));
  const down = harness.servers().filter((s) => s.error);
  for (const s of down) process.stderr.write(`server ${s.name} is ${s.state}: ${oneLine(s.error, 200)}\n`);
  return 0;
}

/** Exit codes of `call`. */
export const CALL_EXIT = { ok: 0, failed: 1, usage: 2, unavailable: 3 } as const;

/**
 * `call`: 0 on success, 1 when the tool or the call failed, 2 for unknown tools and invalid
 * arguments, 3 when the tool's server is not running (a typo and a server that is down differ).
 * A call that becomes a task is waited for with its progress (Ctrl-C cancels the task on the
 * server); with `--detach` its id is printed at once and it keeps running.
 */
export async function runCall(harness: McpHarness, options: CliOptions, tool: string, args: Record<string, unknown>, interrupts?: CliInterrupts): Promise<number> {
  const controller = new AbortController();
  const tasks = new CliTaskReporter(!options.json && process.stderr.isTTY === true);
  const call = harness.call(
    { name: tool, arguments: args },
    {
      signal: controller.signal,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.detach ? { detachTask: true } : {}),
      decider: terminalDecider(process.stdin.isTTY === true && process.stderr.isTTY === true),
      onEvent: (e) => {
        tasks.event(e);
        const p = e.state === 'running' ? e.progress : undefined;
        if (p && !options.json && process.stderr.isTTY) process.stderr.write(`progress ${p.progress}${p.total ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}\n`);
      },
    },
  );
  // Ctrl-C stops the call, and a task it became is cancelled on its server before the harness closes.
  interrupts?.onInterrupt(async () => {
    controller.abort();
    await Promise.race([call, new Promise((r) => setTimeout(r, 5000).unref())]);
  });
  const outcome: ToolCallOutcome = await call;
  if (options.detach && tasks.task && !outcome.isError) {
    const { taskId, server } = tasks.task;
    process.stdout.write(options.json ? `${JSON.stringify({ taskId, server, status: tasks.task.status }, null, 2)}\n` : `${taskId}\n`);
    process.stderr.write(`the task keeps running on ${server}; "mcp-harness task ${taskId}" shows it or waits for it\n`);
    // A stdio server is a process of this command: it ends when the command does, and its tasks with it.
    if (harness.snapshot(server)?.transport === 'stdio') process.stderr.write(`note: ${server} runs as a process of this command (stdio): it ends now, and the task with it\n`);
    return CALL_EXIT.ok;
  }
  if (options.detach && !tasks.task && !options.json) process.stderr.write('the call did not become a task: its result follows\n');
  for (const message of outcome.hookMessages ?? []) process.stderr.write(`hook: ${message}\n`);
  for (const note of outcome.hookNotes ?? []) process.stderr.write(`hook note (${note.hook}): ${note.text}\n`);
  const { isError, text, content, structuredContent, errorKind } = outcome;
  const result = { isError, text, content, ...(structuredContent ? { structuredContent } : {}), ...(errorKind ? { errorKind } : {}) };
  const usageError = result.errorKind === 'unknown_tool' || result.errorKind === 'invalid_arguments';
  if (options.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  } else if (result.isError) {
    process.stderr.write(`${result.text}\n`);
    if (result.errorKind === 'unknown_tool') suggestTools(harness, tool);
  } else {
    process.stdout.write(result.text.endsWith('\n') ? result.text : result.text + '\n');
  }
  if (!result.isError) return CALL_EXIT.ok;
  return usageError ? CALL_EXIT.usage : result.errorKind === 'unavailable' ? CALL_EXIT.unavailable : CALL_EXIT.failed;
}

/** `hooks`: every configured hook, in the order they run. */
export async function runHooks(harness: McpHarness, options: CliOptions): Promise<number> {
  const { rows, json } = renderHooks(harness.hooks(), options.workspace);
  if (options.json) {
    process.stdout.write(JSON.stringify({ hooks: json, configErrors: harness.configErrors().map((e) => formatConfigError(e, options.workspace)) }, null, 2) + '\n');
    return 0;
  }
  process.stdout.write((rows.length ? renderTable(['EVENT', 'MATCHER', 'COMMAND', 'FROM', 'STATE'], rows) : 'No hooks configured.') + '\n');
  printConfigErrors(harness.configErrors().map((e) => formatConfigError(e, options.workspace)));
  return 0;
}

function suggestTools(harness: McpHarness, tool: string): void {
  const needle = tool.toLowerCase().replace(/^mcp__/, '');
  const close = harness
    .tools()
    .filter((t) => t.name.toLowerCase().includes(needle) || needle.includes(t.originalName.toLowerCase()))
    .slice(0, 5);
  if (close.length) process.stderr.write(`did you mean: ${close.map((t) => t.name).join(', ')}\n`);
  else process.stderr.write('run "mcp-harness tools" to see every tool\n');
}

function printConfigErrors(lines: string[]): void {
  if (lines.length === 0) return;
  process.stderr.write(`\nConfig errors:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
}

/** `login`: signs in to one HTTP server (the browser opens), then reports its state. 0 when it runs. */
export async function runLogin(harness: McpHarness, name: string): Promise<number> {
  const server = requireServer(harness, name);
  if (server === undefined) return CALL_EXIT.usage;
  await harness.signIn(name);
  const after = requireServer(harness, name)!;
  if (after.state !== 'running') {
    process.stderr.write(`${name}: ${after.state}${after.error ? `: ${oneLine(after.error, 300)}` : ''}\n`);
    return CALL_EXIT.failed;
  }
  process.stdout.write(`Signed in to ${name}: ${after.tools.length} tools.\n`);
  return CALL_EXIT.ok;
}

/** `logout`: forgets one server's tokens and client registration. */
export async function runLogout(harness: McpHarness, name: string): Promise<number> {
  if (requireServer(harness, name) === undefined) return CALL_EXIT.usage;
  await harness.signOut(name);
  process.stdout.write(`Signed out of ${name}.\n`);
  return CALL_EXIT.ok;
}

function requireServer(harness: McpHarness, name: string): ReturnType<McpHarness['servers']>[number] | undefined {
  const server = harness.servers().find((s) => s.name === name);
  if (!server) process.stderr.write(`no server named "${name}" (configured: ${harness.servers().map((s) => s.name).join(', ') || 'none'})\n`);
  return server;
}
