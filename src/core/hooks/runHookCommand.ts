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
  /** Time the process group gets between SIGTERM and SIGKILL (default 1 s). */
  readonly killGraceMs?: number;
  now?(): number;
}

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
  // Stryker disable next-line all: what differs on Windows cannot be seen here
  const win = process.platform === 'win32';
  // Stryker disable next-line all: see above
  const child = spawn(win ? process.env.ComSpec || 'cmd.exe' : '/bin/sh', win ? ['/d', '/s', '/c', command] : ['-c', command], {
    cwd: o.cwd,
    env: o.env,
    detached: !win,
    // Stryker disable next-line BooleanLiteral: see above
    windowsHide: true,
  });
  const pid = child.pid;
  if (pid === undefined) {
    // No process was made (the shell or the folder is not there): the reason comes as an event.
    const err = await new Promise<Error>((resolve) => child.once('error', resolve));
    return { ...base, spawnError: errorMessage(err), durationMs: now() - started };
  }
  const max = o.maxOutputBytes ?? DEFAULT_HOOK_OUTPUT_BYTES;
  // Stryker disable next-line LogicalOperator: only how long a stubborn group gets changes, which a test does not time
  const grace = o.killGraceMs ?? KILL_GRACE_MS;
  const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], bytes: { stdout: 0, stderr: 0 } };
  let ending: 'timeout' | 'cancelled' | 'overflow' | undefined;
  let overflow: 'stdout' | 'stderr' | undefined;
  let sweeping: Promise<void> = Promise.resolve();
  trackProcessGroup(pid);
  const end = (why: 'timeout' | 'cancelled' | 'overflow') => {
    if (ending) return;
    ending = why;
    sweeping = sweepProcessGroup(pid, grace);
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
  o.signal?.addEventListener('abort', onAbort);
  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>((resolve) => {
      child.once('error', (err) => resolve(err));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    if (exit instanceof Error) return { ...base, spawnError: errorMessage(exit), durationMs: now() - started };
    await sweeping;
    await sweepProcessGroup(pid, grace);
    await streamsClosed(child, grace);
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
    untrackProcessGroup(pid);
  }
}

/**
 * Node may report the exit before the pipes are drained. After the sweep has polled the group they
 * always were in every run tried here, so no test can tell this wait from none.
 */
// Stryker disable all: see above
function streamsClosed(child: ReturnType<typeof spawn>, graceMs: number): Promise<void> {
  if (child.stdout?.closed !== false && child.stderr?.closed !== false) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
// Stryker restore all
