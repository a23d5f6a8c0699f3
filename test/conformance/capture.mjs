// What both conformance runners (client and server mode) do with child processes and their own end.
import { spawn, spawnSync } from 'node:child_process';

/**
 * Runs a command to its end and returns its exit code and output (stdout and stderr together).
 * @returns {Promise<{ code: number | null, output: string }>}
 */
export function capture(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    // The suite colours its output whatever the terminal; the saved log should be plain text.
    child.on('close', (code) => resolve({ code, output: output.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

/** Runs a command with its output on ours; throws naming `what` when it fails. */
export function run(command, args, what, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`${what} failed (${command} ${args.join(' ')} exited with ${result.status ?? result.signal})`);
}

/** Runs a runner's `main`: its result is the exit code, and a throw is logged and exits 1. */
export function runMain(main, log) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (err) => {
      log(err instanceof Error ? err.message : String(err));
      process.exitCode = 1;
    },
  );
}
