// Runs a command to its end and returns its exit code and output (stdout and stderr together).
import { spawn } from 'node:child_process';

/** @returns {Promise<{ code: number | null, output: string }>} */
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
