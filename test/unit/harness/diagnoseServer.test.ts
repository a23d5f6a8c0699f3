import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseServer } from '../../../src/core/diagnoseServer';
import { definition } from '../../support/definitions';

// Real files on PATH and a real loopback HTTP server: what a diagnosis looks at.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-harness-doctor-'));
const bin = path.join(dir, 'bin');
let base = '';
let server: http.Server;

beforeAll(async () => {
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'mytool'), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'notexec'), 'x', { mode: 0o644 });
  server = http.createServer((req, res) => {
    // Never answered: a fetch of it ends only by its time limit.
    if (req.url === '/silent') return;
    const status = req.url === '/auth' ? 401 : req.url === '/forbidden' ? 403 : 200;
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = { PATH: bin };
const diagnose = (entry: Parameters<typeof definition>[1], extra = {}) => diagnoseServer(definition('s', entry), { env, ...extra });

describe('diagnoseServer', () => {
  it('finds a command on PATH, and names a missing one with how to install it', async () => {
    expect(await diagnose({ command: 'mytool' })).toEqual([
      { server: 's', level: 'ok', message: `command "mytool" found at ${path.join(bin, 'mytool')}`, fix: undefined },
      { server: 's', level: 'ok', message: 'no problems found', fix: undefined },
    ]);
    expect(await diagnose({ command: 'npx' })).toEqual([{ server: 's', level: 'error', message: 'command "npx" not found on PATH', fix: 'install Node.js (https://nodejs.org), which provides npx' }]);
    expect((await diagnose({ command: 'whatever' }))[0].fix).toBe('install whatever, or put its absolute path in "command"');
    expect(await diagnose({ command: path.join(bin, 'notexec') })).toMatchObject([{ level: 'error', message: `command "${path.join(bin, 'notexec')}" does not exist or is not executable`, fix: 'check the path in "command"' }]);
    expect(await diagnose({ command: path.join(bin, 'mytool') })).toMatchObject([{ level: 'ok' }, { message: 'no problems found' }]);
  });

  it('says so when the entry is broken, disabled, or needs variables that are not set', async () => {
    expect(await diagnose({ command: 'mytool', problem: 'bad "type"' })).toEqual([{ server: 's', level: 'error', message: 'bad "type"', fix: 'edit /w/.vscode/mcp.json at servers.s' }]);
    expect((await diagnose({ command: 'mytool', disabled: true }))[0]).toMatchObject({ level: 'warning', message: 'disabled in the configuration', fix: 'remove "disabled": true from servers.s' });
    const unset = await diagnose({ command: 'mytool', env: { KEY: '${API_KEY}' } });
    expect(unset).toEqual([expect.objectContaining({ level: 'error', message: 'env var API_KEY is not set' })]);
    expect(await diagnose({ command: 'mytool', args: ['${input:token}'] })).toEqual([expect.objectContaining({ level: 'error', fix: 'fix the variables in the entry, or provide the inputs when the editor asks' })]);
  });

  it('checks the working directory', async () => {
    expect(await diagnose({ command: 'mytool', cwd: path.join(dir, 'missing') })).toContainEqual({ server: 's', level: 'error', message: `working directory does not exist: ${path.join(dir, 'missing')}`, fix: 'create it, or change "cwd"' });
    expect(await diagnose({ command: 'mytool', cwd: dir })).toMatchObject([{ level: 'ok' }, { message: 'no problems found' }]);
  });

  it('reaches an HTTP server and reads a refusal, with or without an Authorization header', async () => {
    expect(await diagnose({ type: 'http', url: `${base}/mcp` })).toEqual([
      { server: 's', level: 'ok', message: `${base} answers (HTTP 200 to GET /mcp)`, fix: undefined },
      { server: 's', level: 'ok', message: 'no problems found', fix: undefined },
    ]);
    expect(await diagnose({ type: 'http', url: `${base}/auth` })).toContainEqual(expect.objectContaining({ level: 'warning', message: 'the server asks for authorization (HTTP 401)' }));
    expect(await diagnose({ type: 'http', url: `${base}/forbidden`, headers: { Authorization: 'Bearer ${env:TOKEN}' } }, { env: { ...env, TOKEN: 'tok-abcdef123456' } })).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'the Authorization header was sent and rejected (HTTP 403)' }),
    );
  });

  it('names why a server cannot be reached, with the transport to start', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await diagnose({ type: 'sse', url: `http://127.0.0.1:${port}/sse` })).toEqual([
      { server: 's', level: 'error', message: `cannot reach http://127.0.0.1:${port} (ECONNREFUSED)`, fix: 'start the SSE server, or check the host and port in "url"' },
    ]);
    expect((await diagnose({ type: 'http', url: `http://127.0.0.1:${port}/mcp` }))[0].fix).toBe('start the HTTP server, or check the host and port in "url"');
  });

  it('looks commands up the Windows way on Windows', async () => {
    const result = await diagnoseServer(definition('s', { command: 'node' }), { env: { PATH: 'C:\\nowhere' }, platform: 'win32' });
    expect(result).toEqual([expect.objectContaining({ level: 'error', message: 'command "node" not found on PATH', fix: 'install Node.js (https://nodejs.org)' })]);
  });
});

describe('diagnoseServer, the finer points', () => {
  it('names each unset variable with how to set it, and gives no second error for the same launch', async () => {
    expect(await diagnose({ command: 'mytool', env: { A: '${ONE}', B: '${TWO}' } })).toEqual([
      { server: 's', level: 'error', message: 'env var ONE is not set', fix: 'set ONE in the environment that starts the editor or CLI, give a default with ${ONE:-value}, or put it in "env" or "envFile"' },
      { server: 's', level: 'error', message: 'env var TWO is not set', fix: 'set TWO in the environment that starts the editor or CLI, give a default with ${TWO:-value}, or put it in "env" or "envFile"' },
    ]);
  });

  it('masks the secrets a launch resolved to in what it reports', async () => {
    const result = await diagnose({ command: '${env:TOOL}' }, { env: { ...env, TOOL: 'secret-tool-name' } });
    expect(JSON.stringify(result)).not.toContain('secret-tool-name');
    expect(result[0]).toMatchObject({ level: 'error', fix: 'install ••••, or put its absolute path in "command"' });
  });

  it('drops a Windows extension from a command to name what to install, and finds commands in the folders of PATH only', async () => {
    expect((await diagnose({ command: 'npx.cmd' }))[0]!.fix).toBe('install Node.js (https://nodejs.org), which provides npx');
    expect((await diagnose({ command: 'npx.cmd.sh' }))[0]!.fix).toBe('install npx.cmd.sh, or put its absolute path in "command"');
    expect((await diagnose({ command: 'mytool' }, { env: { PATH: `${dir}${path.delimiter}${bin}` } }))[0]).toMatchObject({ level: 'ok', message: `command "mytool" found at ${path.join(bin, 'mytool')}` });
    expect((await diagnose({ command: 'bin' }, { env: { PATH: dir } }))[0]).toMatchObject({ level: 'error' });
    expect((await diagnose({ command: 'mytool' }, { env: {} }))[0]).toMatchObject({ level: 'error', message: 'command "mytool" not found on PATH' });
  });

  it('refuses a URL it cannot read, and says how to fix a refused token or a missing one', async () => {
    expect(await diagnose({ type: 'http', url: '${env:U}' }, { env: { ...env, U: 'not a url' } })).toContainEqual(expect.objectContaining({ level: 'error', message: '"••••" is not a valid URL', fix: 'write the full URL, e.g. http://localhost:3000/mcp' }));
    expect(await diagnose({ type: 'http', url: `${base}/auth` })).toContainEqual(
      expect.objectContaining({ fix: 'add an Authorization header under "headers", e.g. "Bearer ${input:token}"' }),
    );
    expect(await diagnose({ type: 'http', url: `${base}/forbidden`, headers: { Authorization: 'Bearer x' } })).toContainEqual(
      expect.objectContaining({ fix: 'check that the token is valid, not expired and allowed to use this server; check the variable or input it comes from' }),
    );
  });

  it('names a reason a fetch failed without a code', async () => {
    const result = await diagnose({ type: 'http', url: `${base}/silent` }, { urlTimeoutMs: 50 });
    expect(result[0]).toMatchObject({ level: 'error', message: expect.stringMatching(new RegExp(`^cannot reach ${base} \\(.+\\)$`)) });
  });
});
