#!/usr/bin/env node
// `npm run test:mutation [-- stryker options]`: runs Stryker (stryker.config.mjs) on Node 22 or
// later, which StrykerJS requires. On the project's Node 20 it uses the toolchain's Node 24
// (installed once into the cache, see scripts/toolchain.mjs). Exits with Stryker's code, so a
// score below `thresholds.break` fails the run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureToolchain } from './toolchain.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
// The package exports no bin path, so it is found where npm puts it.
const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');

async function nodeForStryker() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return process.execPath;
  return (await ensureToolchain({ codeServer: false })).node24;
}

async function main(args) {
  const node = await nodeForStryker();
  const child = spawn(node, [stryker, 'run', ...args], { cwd: root, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`[mutation] ${error.message}\n`);
    process.exitCode = 1;
  },
);
