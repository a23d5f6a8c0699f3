import { spawn } from 'node:child_process';
import { errorMessage } from '../base/errors';
import { sweepProcessGroup, trackProcessGroup, untrackProcessGroup } from '../process/processGroup';

/** What a hook command did. */
export interface HookCommandRun {
  /** Exit code; null when killed by a signal, timed out, cancelled or never started. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly cancelled: boolean;
  /** Why the command could not be started at all. */
  readonly spawnError?: string;
  /** A stream went past the cap; the command was killed. */
  readonly overflow?: 'stdout' | 'stderr';
  readonly durationMs: number;
}

export interface HookCommandOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Written to stdin, which is then closed. */
  readonly input: string;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Largest stdout (and stderr) kept; more kills the command (default 4 MiB). */
  readonly maxOutputBytes?: number;
  now?(): number;
}

/** Time the process group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1000;
export const DEFAULT_HOOK_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * Runs one hook command line in a shell (`/bin/sh -c`, `cmd.exe /d /s /c` on Windows) in its own
 * process group, with `input` on stdin. A timeout, a cancel or too much output ends the whole
 * group; so does the command's exit (whatever it left running in the background goes with it).
 */
export async function runHookCommand(command: string, o: HookCommandOptions): Promise<HookCommandRun> {
  const now = o.now ?? (() => performance.now());
  const started = now();
  const base = { exitCode: null, signal: null, stdout: '', stderr: '', timedOut: false, cancelled: false };
  if (o.signal?.aborted) return { ...base, cancelled: true, durationMs: 0 };
  const win = process.platform === 'win32';
  const child = spawn(win ? process.env.ComSpec || 'cmd.exe' : '/bin/sh', win ? ['/d', '/s', '/c', command] : ['-c', command], {
    cwd: o.cwd,
    env: o.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: !win,
    windowsHide: true,
  });
  const max = o.maxOutputBytes ?? DEFAULT_HOOK_OUTPUT_BYTES;
  const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], bytes: { stdout: 0, stderr: 0 } };
  let ending: 'timeout' | 'cancelled' | 'overflow' | undefined;
  let overflow: 'stdout' | 'stderr' | undefined;
  let sweeping: Promise<void> = Promise.resolve();
  const pid = child.pid;
  if (pid !== undefined) trackProcessGroup(pid);
  const end = (why: 'timeout' | 'cancelled' | 'overflow') => {
    if (ending || pid === undefined) return;
    ending = why;
    sweeping = sweepProcessGroup(pid, KILL_GRACE_MS);
  };
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream].on('data', (chunk: Buffer) => {
      out.bytes[stream] += chunk.length;
      if (out.bytes[stream] > max) {
        overflow ??= stream;
        end('overflow');
        return;
      }
      out[stream].push(chunk);
    });
  }
  // A hook that does not read its input closes stdin early: that is its right, not an error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(o.input);
  const timer = setTimeout(() => end('timeout'), o.timeoutMs);
  const onAbort = () => end('cancelled');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>((resolve) => {
      child.once('error', (err) => resolve(err));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    if (exit instanceof Error) return { ...base, spawnError: errorMessage(exit), durationMs: now() - started };
    await sweeping;
    if (pid !== undefined) await sweepProcessGroup(pid, KILL_GRACE_MS);
    await streamsClosed(child);
    return {
      exitCode: ending ? null : exit.code,
      signal: exit.signal,
      stdout: Buffer.concat(out.stdout).toString('utf8'),
      stderr: Buffer.concat(out.stderr).toString('utf8'),
      timedOut: ending === 'timeout',
      cancelled: ending === 'cancelled',
      ...(overflow ? { overflow } : {}),
      durationMs: now() - started,
    };
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
    if (pid !== undefined) untrackProcessGroup(pid);
  }
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
