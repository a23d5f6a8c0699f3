// The toolchain's install path with real child processes: the environment its installs get, and what a
// failed install says and leaves behind. Packages come from local tarballs: no network.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanInstallEnv, installPackage, runLogged } from '../../../scripts/toolchain.mjs';

const TOOLCHAIN = resolve(import.meta.dirname, '../../../scripts/toolchain.mjs');
/** A child that prints its whole environment as JSON. */
const PRINT_ENV = ['-e', 'process.stdout.write(JSON.stringify(process.env))'];

let dir;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'mcp-harness-toolchain-test-')); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The environment a child printed into an install log (after the `$ command` line). */
function printedEnv(logFile) {
  const text = readFileSync(logFile, 'utf8');
  return JSON.parse(text.slice(text.indexOf('\n') + 1));
}

/** Names npm puts into a script's environment, besides PATH. */
const npmNames = (env) => Object.keys(env).filter((k) => /^npm_/i.test(k) || ['INIT_CWD', 'NODE', 'COLOR'].includes(k));

describe('install environment', () => {
  it('a child launched from inside `npm run` sees none of the variables npm set, and keeps PATH and HOME', () => {
    // A real outer `npm run` (the project's npm on the project's Node), whose script launches a child
    // the way the toolchain launches its installs.
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'outer', version: '1.0.0', scripts: { probe: 'node probe.mjs' } }));
    writeFileSync(join(project, 'probe.mjs'), [
      `import { writeFileSync } from 'node:fs';`,
      `import { runLogged } from ${JSON.stringify(pathToFileURL(TOOLCHAIN).href)};`,
      `writeFileSync('outer.json', JSON.stringify(process.env));`,
      `await runLogged(process.execPath, ${JSON.stringify(PRINT_ENV)}, { logFile: 'child.log', env: { ADDED_BY_CALLER: 'yes' } });`,
    ].join('\n'));
    const r = spawnSync('npm', ['run', '--silent', 'probe'], { cwd: project, encoding: 'utf8', env: { ...process.env, npm_config_user_agent: 'npm/0 node/v20.0.0 linux x64' } });
    expect(r.status, r.stderr).toBe(0);

    const outer = JSON.parse(readFileSync(join(project, 'outer.json'), 'utf8'));
    expect(outer.npm_config_user_agent).toMatch(/node\/v\d+/);
    expect(outer.npm_lifecycle_event).toBe('probe');
    expect(outer.npm_package_name).toBe('outer');
    expect(outer.INIT_CWD).toBe(project);
    expect(outer.PATH.split(':')).toContain(join(project, 'node_modules', '.bin'));

    const child = printedEnv(join(project, 'child.log'));
    expect(npmNames(child)).toEqual([]);
    expect(child.ADDED_BY_CALLER).toBe('yes');
    expect(child.HOME).toBe(outer.HOME);
    const path = child.PATH.split(':');
    expect(path.filter((p) => p.endsWith('/node_modules/.bin') || p.endsWith('node-gyp-bin'))).toEqual([]);
    // Everything else on PATH stays, in order.
    expect(path).toEqual(outer.PATH.split(':').filter((p) => !p.endsWith('/node_modules/.bin') && !p.endsWith('node-gyp-bin')));
  });

  it('npm variables in the parent environment do not reach a child launched by a script without npm', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      npm_config_user_agent: 'npm/10.0.0 node/v20.0.0 linux x64',
      npm_config_nodedir: '/somewhere/else',
      NPM_CONFIG_CACHE: '/tmp/other-cache',
      npm_package_name: 'mcp-harness',
      npm_lifecycle_event: 'test:e2e',
      npm_lifecycle_script: 'node test/e2e/run.mjs',
      npm_execpath: '/usr/lib/node_modules/npm/bin/npm-cli.js',
      npm_node_execpath: '/usr/bin/node',
      npm_command: 'run-script',
      INIT_CWD: '/work',
      NODE: '/usr/bin/node',
      KEPT_BY_SCRUB: 'kept',
    });
    try {
      const logFile = join(dir, 'logs', 'child.log');
      await runLogged(process.execPath, PRINT_ENV, { logFile, env: { npm_config_nodedir: '/node24' } });
      const child = printedEnv(logFile);
      expect(npmNames(child)).toEqual(['npm_config_nodedir']);
      expect(child.npm_config_nodedir).toBe('/node24'); // what the caller sets on purpose stays
      expect(child.KEPT_BY_SCRUB).toBe('kept');
      expect(child.PATH).toBe(cleanInstallEnv().PATH);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it('leaves an environment without npm variables as it is', () => {
    const env = { PATH: '/repo/node_modules/.bin:/usr/bin', HOME: '/home/u', NODE: '/opt/node', EDITOR: 'vim' };
    expect(cleanInstallEnv(env)).toEqual(env);
  });
});

describe('installPackage', () => {
  /** A package tarball whose install script prints a line and exits with `exitCode`. */
  function tarball(name, exitCode) {
    const src = join(dir, `src-${name}`, 'package');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'package.json'), JSON.stringify({
      name, version: '1.0.0',
      scripts: { install: `echo half-done > half-done.txt && echo ${name} install script ran >&2 && exit ${exitCode}` },
    }));
    const file = join(dir, `${name}-1.0.0.tgz`);
    const r = spawnSync('tar', ['czf', file, '-C', join(dir, `src-${name}`), 'package']);
    expect(r.status).toBe(0);
    return file;
  }

  it('a failed install says what failed, where the log is and how to retry, and leaves nothing behind', async () => {
    const cache = join(dir, 'cache');
    const spec = tarball('failing-tool', 7);
    const target = join(cache, 'failing-tool-1.0.0');
    const logFile = join(cache, 'logs', 'failing-tool.log');
    const saved = process.env.MCP_HARNESS_CACHE;
    process.env.MCP_HARNESS_CACHE = cache;
    let error;
    try {
      await installPackage(target, spec, { allowScripts: { 'failing-tool': true }, logFile });
    } catch (e) {
      error = e;
    } finally {
      if (saved === undefined) delete process.env.MCP_HARNESS_CACHE;
      else process.env.MCP_HARNESS_CACHE = saved;
    }
    expect(error).toBeInstanceOf(Error);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe(`installing ${spec} failed: npm install --no-audit --no-fund --no-package-lock ${spec} exited with 7`);
    expect(lines).toContain('    npm error failing-tool install script ran');
    expect(lines).toContain(`  full log: ${logFile}`);
    expect(lines.at(-1)).toBe(`  retry: MCP_HARNESS_CACHE=${cache} npm run toolchain`);
    expect(readFileSync(logFile, 'utf8')).toContain('failing-tool install script ran');
    // No final folder, no staging folder, no marker: only the logs.
    expect(readdirSync(cache)).toEqual(['logs']);
  });

  it('a successful install lands in its folder with an .ok marker and removes an interrupted earlier attempt', async () => {
    const cache = join(dir, 'cache');
    const target = join(cache, 'good-tool-1.0.0');
    mkdirSync(join(`${target}.partial-999999`, 'node_modules'), { recursive: true });
    await installPackage(target, tarball('good-tool', 0), { allowScripts: { 'good-tool': true }, logFile: join(cache, 'logs', 'good-tool.log') });
    expect(readdirSync(cache).sort()).toEqual(['good-tool-1.0.0', 'logs']);
    expect(readFileSync(join(target, '.ok'), 'utf8')).toMatch(/^\S+good-tool-1\.0\.0\.tgz installed in \d+ s\n$/);
    // The install script ran (allowed), and the staging folder's temp dir is gone.
    expect(readFileSync(join(target, 'node_modules', 'good-tool', 'half-done.txt'), 'utf8')).toBe('half-done\n');
    expect(existsSync(join(target, '.tmp'))).toBe(false);
  });
});
