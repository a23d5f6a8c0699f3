import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A small shell process that outlives its host by design: the host tells it, over a pipe, which
 * process groups it started ("+PGID") and which are gone ("-PGID"). When the pipe closes (the host
 * exited, crashed or was killed with SIGKILL, which no exit hook survives), it kills every group
 * still listed and exits. Servers run in process groups of their own, so no signal meant for the
 * host reaches them: without this, a killed host leaves its servers running.
 *
 * POSIX only (Linux and macOS have /bin/sh and process groups); on Windows the exit hook's
 * `taskkill /T` is what there is. It ignores SIGINT and SIGHUP, which a terminal sends to a whole
 * foreground group, so a Ctrl-C that the host handles gracefully does not take it away first.
 */
// Stryker disable next-line all: a shell script; what it does is tested through a host that is killed (processGroup.test.ts), where no mutant is active
const SCRIPT = [
  "trap '' INT HUP",
  'groups=""',
  'while IFS= read -r line; do',
  '  case "$line" in',
  '    +*) groups="$groups ${line#+}" ;;',
  '    -*) gone=${line#-}; rest=""; for g in $groups; do [ "$g" = "$gone" ] || rest="$rest $g"; done; groups=$rest ;;',
  '  esac',
  'done',
  'for g in $groups; do kill -KILL "-$g" 2>/dev/null; done',
].join('\n');

export class GroupWatchdog {
  private _child: ChildProcess | undefined;

  constructor(private readonly _shell = '/bin/sh') {}

  /** The watchdog's pid, once started (for tests). */
  get pid(): number | undefined {
    return this._child?.pid;
  }

  add(pgid: number): void {
    // Stryker disable next-line StringLiteral: the line is read by the shell script (see SCRIPT)
    this._send(`+${pgid}\n`);
  }

  remove(pgid: number): void {
    // Stryker disable next-line StringLiteral: the line is read by the shell script (see SCRIPT)
    if (this._child) this._send(`-${pgid}\n`);
  }

  private _send(line: string): void {
    const child = this._start();
    // A started shell always has its stdin (a pipe).
    if (!child?.stdin!.writable) return;
    child.stdin.write(line);
  }

  private _start(): ChildProcess | undefined {
    if (this._child) return this._child;
    try {
      const child = spawn(this._shell, ['-c', SCRIPT], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
      // No shell (the error comes as this event): what is written to it then fails quietly, and
      // the exit hook still covers a normal exit.
      child.on('error', () => undefined);
      child.stdin!.on('error', () => undefined);
      // Neither the process nor its pipe may keep the host's event loop alive.
      child.unref();
      (child.stdin as unknown as { unref(): void }).unref();
      this._child = child;
      return child;
    } catch {
      // What spawn refuses before making a process (it throws then): no watchdog.
    }
    return undefined;
  }
}
