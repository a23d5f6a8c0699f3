import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { formatByteSize } from '../formatToolResult';
import { endProcesses, findProcessesWithEnv, isSameProcessAlive, sweepProcessGroup, trackProcessGroup, untrackProcessGroup } from '../../process/processGroup';
import type { BuiltinTool, ToolCallResult } from '../types';
import { BuiltinArgumentError, defineBuiltin, optionalInteger, optionalString, requiredString } from './toolKit';
import type { WorkspaceRoots } from './WorkspaceRoots';

export const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
export const DEFAULT_COMMAND_OUTPUT_BYTES = 64 * 1024;
/** The environment variable that marks every process one command started. */
export const RUN_ENV = 'MCP_HARNESS_RUN_ID';
/** Time the process group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;

export interface RunCommandOptions {
  /** Environment of the commands (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly maxOutputBytes?: number;
  readonly defaultTimeoutMs?: number;
}

/** `run_command`: a shell command in a workspace folder, its whole process tree ended on timeout or cancel. */
export function createRunCommandTool(roots: WorkspaceRoots, options: RunCommandOptions = {}): BuiltinTool {
  const defaultTimeout = options.defaultTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const maxOutput = options.maxOutputBytes ?? DEFAULT_COMMAND_OUTPUT_BYTES;
  return defineBuiltin({
    name: 'run_command',
    title: 'Run Shell Command',
    description:
      `Run a shell command in a workspace folder and return its exit code and combined output (capped at ${formatByteSize(maxOutput)}: ` +
      `the start and the end are kept). The command and every process it starts are ended after timeout_ms (default ${defaultTimeout / 1000} s) or when the call is cancelled.`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'Shell command line (run by /bin/sh -c, or cmd.exe on Windows).' },
        cwd: { type: 'string', description: 'Working folder, relative to the workspace root (default: the root).' },
        timeout_ms: { type: 'integer', minimum: 1, maximum: MAX_COMMAND_TIMEOUT_MS, description: 'Time limit in milliseconds.' },
      },
      required: ['command'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    async run(args, signal) {
      const command = requiredString(args, 'command');
      if (command.trim() === '') throw new BuiltinArgumentError('argument "command" must not be empty');
      const timeoutMs = optionalInteger(args, 'timeout_ms', { max: MAX_COMMAND_TIMEOUT_MS }) ?? defaultTimeout;
      const cwd = await roots.resolveExisting(optionalString(args, 'cwd') ?? '.');
      if (!(await fs.stat(cwd.absolute)).isDirectory()) throw new BuiltinArgumentError(`"${args.cwd}" is not a directory`);
      return runShell(command, cwd.absolute, cwd.relative, { timeoutMs, maxOutput, env: options.env ?? process.env, signal });
    },
  });
}

interface ShellRun {
  readonly timeoutMs: number;
  readonly maxOutput: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal?: AbortSignal;
}

async function runShell(command: string, cwd: string, shownCwd: string, o: ShellRun): Promise<ToolCallResult> {
  if (o.signal?.aborted) return commandResult(true, 'run_command: cancelled before it started');
  const win = process.platform === 'win32';
  // Inherited by everything the command starts, so what leaves its process group is found too.
  const runId = randomUUID();
  const child = spawn(win ? process.env.ComSpec || 'cmd.exe' : '/bin/sh', win ? ['/d', '/s', '/c', command] : ['-c', command], {
    cwd,
    env: { ...o.env, [RUN_ENV]: runId } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so the whole tree can be signalled at once.
    detached: !win,
    windowsHide: true,
  });
  const output = new CappedOutput(o.maxOutput);
  child.stdout.on('data', (chunk: Buffer) => output.add(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.add(chunk));
  const pid = child.pid;
  if (pid !== undefined) trackProcessGroup(pid);
  let ending: 'timeout' | 'cancelled' | undefined;
  let sweeping: Promise<void> = Promise.resolve();
  const end = (why: 'timeout' | 'cancelled') => {
    if (ending || pid === undefined) return;
    ending = why;
    sweeping = sweepProcessGroup(pid, KILL_GRACE_MS);
  };
  const timer = setTimeout(() => end('timeout'), o.timeoutMs);
  const onAbort = () => end('cancelled');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>((resolve) => {
      child.once('error', (err) => resolve(err));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    if (exit instanceof Error) return commandResult(true, `run_command: could not start the shell: ${exit.message}`);
    // Whatever the command left running in the background goes with it.
    await sweeping;
    if (pid !== undefined) await sweepProcessGroup(pid, KILL_GRACE_MS);
    const notes = await endEscaped(`${RUN_ENV}=${runId}`);
    await streamsClosed(child);
    const text = output.text();
    // The notes go on lines of their own (the text is never empty: it says when there was no output).
    const noteLines = `${text.endsWith('\n') ? '' : '\n'}${notes.join('\n')}`;
    // Stryker disable next-line ConditionalExpression: without notes the other branch only adds a line break, which the result trims
    const body = notes.length === 0 ? text : text + noteLines;
    const where = shownCwd === '.' ? '' : ` (in ${shownCwd})`;
    if (ending === 'timeout') return commandResult(true, `Command timed out after ${o.timeoutMs} ms and was killed with every process it started${where}.\n${body}`);
    if (ending === 'cancelled') return commandResult(true, `Command cancelled; it and every process it started were killed${where}.\n${body}`);
    const status = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
    return commandResult(exit.code !== 0, `${status}${where}\n${body}`, { exitCode: exit.code, signal: exit.signal });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
    if (pid !== undefined) untrackProcessGroup(pid);
  }
}

/**
 * Ends the processes the command started that left its process group (a daemon that called
 * setsid), found by the environment entry they inherited (Linux), and says what it did, a line
 * each: they end the result, so the model is not told that everything ended when something did not.
 */
async function endEscaped(entry: string): Promise<string[]> {
  const escaped = findProcessesWithEnv(entry);
  if (escaped.length === 0) return [];
  await endProcesses(escaped, KILL_GRACE_MS);
  const left = escaped.filter((r) => isSameProcessAlive(r));
  const ended = escaped.length - left.length;
  const plural = (n: number) => (n === 1 ? 'process' : 'processes');
  const notes: string[] = [];
  if (ended > 0) notes.push(`[run_command: ended ${ended} background ${plural(ended)} that had left its process group]`);
  if (left.length > 0) notes.push(`[run_command: could not end ${left.length} ${plural(left.length)} it started: pid ${left.map((r) => r.pid).join(', ')}]`);
  return notes;
}

function streamsClosed(child: ReturnType<typeof spawn>): Promise<void> {
  if (child.stdout?.closed !== false && child.stderr?.closed !== false) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, KILL_GRACE_MS);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function commandResult(isError: boolean, text: string, structured?: Record<string, unknown>): ToolCallResult {
  const trimmed = text.replace(/\n+$/, '');
  return { isError, text: trimmed, content: [{ type: 'text', text: trimmed }], ...(structured ? { structuredContent: structured } : {}) };
}

/** Keeps the first and the last half of `max` bytes of output, counting what was dropped. */
class CappedOutput {
  private readonly _head: Buffer[] = [];
  private _headBytes = 0;
  private _tail: Buffer = Buffer.alloc(0);
  private _dropped = 0;

  constructor(private readonly _max: number) {}

  add(chunk: Buffer): void {
    const headRoom = Math.ceil(this._max / 2) - this._headBytes;
    if (headRoom > 0) {
      const part = chunk.subarray(0, headRoom);
      this._head.push(part);
      this._headBytes += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    const tailMax = Math.floor(this._max / 2);
    const joined = Buffer.concat([this._tail, chunk]);
    this._dropped += Math.max(0, joined.length - tailMax);
    this._tail = joined.subarray(Math.max(0, joined.length - tailMax));
  }

  text(): string {
    const head = Buffer.concat(this._head).toString('utf8');
    const tail = this._tail.toString('utf8');
    if (head === '' && tail === '') return '(no output)';
    if (this._dropped === 0) return head + tail;
    return `${head}\n…[${this._dropped.toLocaleString('en-US')} bytes of output omitted]…\n${tail}`;
  }
}
