import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { LineSplitter, LineTooLongError } from '../process/LineSplitter';
import { DEFAULT_SHUTDOWN_GRACE_MS, endProcesses, findDescendants, signalProcessGroup, sweepProcessGroup, trackProcessGroup, untrackProcessGroup, waitUntil } from '../process/processGroup';
import { buildSpawnPlan } from '../process/spawnCommand';
import { readJsonRpcMessage } from './jsonRpcMessage';

/** What to run for a stdio server, variables already substituted. */
export interface McpStdioLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface McpStdioTransportOptions {
  readonly launch: McpStdioLaunch;
  /** Largest single message accepted on stdout (default 64 MiB); a bigger one ends the connection. */
  readonly maxMessageBytes?: number;
  /** Wait at each shutdown step: stdin closed, then SIGTERM, then SIGKILL (default 2 s). */
  readonly shutdownGraceMs?: number;
  readonly platform?: NodeJS.Platform;
  onStderrLine?(line: string): void;
  /** A stdout line that is not a JSON-RPC message; it is skipped. */
  onStdoutNoise?(line: string): void;
}

/** How the server process ended. */
export interface McpProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** Failure to start the process at all (command not found, bad working directory). */
export class McpSpawnError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'McpSpawnError';
  }
}

export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const STDOUT_DRAIN_MS = 200;

/**
 * MCP over a child process's stdin/stdout. Unlike the SDK's transport it runs the server in its
 * own process group, so shutdown reaches the server's own children (an `npx` wrapper's node, a
 * helper it spawned), skips stray non-JSON stdout lines instead of failing, and reads stderr
 * line by line for the log.
 */
export class McpStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private _child: ChildProcess | undefined;
  private _exit: McpProcessExit | undefined;
  private _exited: Promise<void> | undefined;
  private _closing: Promise<void> | undefined;
  private _closedFired = false;
  private _stdoutEnded: Promise<void> | undefined;
  private _failure: string | undefined;
  private readonly _grace: number;
  private readonly _platform: NodeJS.Platform;

  constructor(private readonly _options: McpStdioTransportOptions) {
    this._grace = _options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    this._platform = _options.platform ?? process.platform;
  }

  get pid(): number | undefined {
    return this._child?.pid;
  }

  /** Why the transport itself ended the connection (e.g. a message over the size limit), when it did. */
  get failure(): string | undefined {
    return this._failure;
  }

  /** Set once the process has exited. */
  get exit(): McpProcessExit | undefined {
    return this._exit;
  }

  async start(): Promise<void> {
    if (this._child) throw new Error('McpStdioTransport already started');
    const { launch } = this._options;
    if (launch.cwd !== undefined && !isDirectory(launch.cwd)) {
      throw new McpSpawnError(`working directory does not exist: ${launch.cwd}`, 'ENOENT');
    }
    const plan = buildSpawnPlan(launch.command, launch.args, { platform: this._platform, env: launch.env });
    const child = spawn(plan.file, [...plan.args], {
      cwd: launch.cwd,
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Own process group, so the whole tree can be signalled at once.
      detached: this._platform !== 'win32',
      windowsHide: true,
      windowsVerbatimArguments: plan.windowsVerbatimArguments,
    });
    this._child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (err: NodeJS.ErrnoException) => {
        reject(
          new McpSpawnError(
            err.code === 'ENOENT' ? `command not found: "${launch.command}" (is it installed and on PATH?)` : `could not start "${launch.command}": ${err.message}`,
            err.code,
          ),
        );
      });
    });
    trackProcessGroup(child.pid!, this._platform);
    this._exited = new Promise((resolve) => child.once('exit', (code, signal) => this._onExit({ code, signal }, resolve)));
    child.on('error', (err) => this.onerror?.(err));
    child.stdin!.on('error', () => undefined); // EPIPE after the server died; the exit handler reports it.
    this._readStdout(child);
    this._readStderr(child);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this._child?.stdin;
    if (!stdin || !stdin.writable || this._exit) return Promise.reject(new Error('server process is not running'));
    return new Promise((resolve) => {
      if (stdin.write(JSON.stringify(message) + '\n')) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the server: stdin closed, SIGTERM to its group after the grace time, SIGKILL after another. */
  close(): Promise<void> {
    this._closing ??= this._shutdown();
    return this._closing;
  }

  private async _shutdown(): Promise<void> {
    const child = this._child;
    if (child?.pid !== undefined) {
      const pid = child.pid;
      const alive = () => this._exit === undefined;
      // Taken before anything is signalled: once the server is gone its children are re-parented
      // and can no longer be told apart. Covers children that left the process group.
      const descendants = alive() && this._platform === 'linux' ? findDescendants(pid) : [];
      if (alive()) {
        child.stdin?.end();
        if (!(await waitUntil(alive, this._grace))) {
          signalProcessGroup(pid, 'SIGTERM', this._platform);
          if (!(await waitUntil(alive, this._grace))) {
            signalProcessGroup(pid, 'SIGKILL', this._platform);
            await waitUntil(alive, this._grace);
          }
        }
      }
      await this._exited;
      await sweepProcessGroup(pid, this._grace, this._platform);
      await endProcesses(descendants, this._grace);
      untrackProcessGroup(pid);
    }
    this._fireClose();
  }

  private _onExit(exit: McpProcessExit, resolve: () => void): void {
    this._exit = exit;
    resolve();
    const pid = this._child?.pid;
    // The server is gone; its children must not outlive it.
    if (pid !== undefined && !this._closing) {
      this._closing = sweepProcessGroup(pid, this._grace, this._platform).then(() => untrackProcessGroup(pid));
    }
    // Deliver what it wrote just before exiting, unless a surviving child holds stdout open.
    const stdoutDone = this._stdoutEnded ?? Promise.resolve();
    void Promise.race([stdoutDone, delay(STDOUT_DRAIN_MS)]).then(() => this._fireClose());
  }

  private _fireClose(): void {
    if (this._closedFired) return;
    this._closedFired = true;
    this.onclose?.();
  }

  private _readStdout(child: ChildProcess): void {
    this._stdoutEnded = new Promise((resolve) => child.stdout!.once('close', () => resolve()));
    const splitter = new LineSplitter(this._options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    const onLine = (line: string) => this._onStdoutLine(line);
    child.stdout!.on('data', (chunk: Buffer) => {
      try {
        splitter.push(chunk, onLine);
      } catch (err) {
        if (!(err instanceof LineTooLongError)) throw err;
        this._failure ??= `the server sent a message larger than maxMessageBytes (${err.limitBytes} bytes): ${err.message} on stdout; the connection was closed`;
        this.onerror?.(new Error(this._failure));
        void this.close();
      }
    });
  }

  private _onStdoutLine(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = readJsonRpcMessage(JSON.parse(line));
    } catch {
      // Not JSON, or JSON that is not a JSON-RPC message: a log line on the wrong stream.
      this._options.onStdoutNoise?.(line);
      return;
    }
    this.onmessage?.(message);
  }

  private _readStderr(child: ChildProcess): void {
    const splitter = new LineSplitter(1024 * 1024);
    const onLine = (line: string) => this._options.onStderrLine?.(line);
    const onTooLong = () => onLine('[a stderr line longer than 1 MB was dropped]');
    child.stderr!.on('data', (chunk: Buffer) => splitter.push(chunk, onLine, onTooLong));
    child.stderr!.on('end', () => {
      const rest = splitter.flush();
      if (rest) onLine(rest);
    });
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
