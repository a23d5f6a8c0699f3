import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpHarness } from '../../src/core';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { freePort, tempDir } from '../support/servers';
// @ts-expect-error plain ES module without types, shared with the e2e runner
import { ensureToolchain } from '../../scripts/toolchain.mjs';
import { auditLinesWhen, cli, requireBuiltCli, startHttpServe } from './serveSupport';

// A gateway a team shares: `serve --http --oauth-issuer` in front of a real authorization server
// nobody here wrote (oidc-provider on loopback, client credentials and resource indicators on,
// JWT access tokens). Our own client signs in through its normal OAuth path (discovery from the
// gateway's 401, then the token endpoint), the MCP Inspector CLI with a token from the same
// server; tokens for another audience, expired or forged are refused with the challenge that
// names the metadata.
const SCOPE = 'mcp:tools';
/** jose is an ES module; loaded in beforeAll. */
let jose: typeof import('jose', { with: { 'resolution-mode': 'import' } });
const tag = processTag();
const tmp = tempDir('serve-oauth-');
const ws = path.join(tmp.dir, 'ws');
const auditFile = path.join(tmp.dir, 'audit.jsonl');
const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const strangerKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
let issuer = '';
let gateway = '';
let otherResource = '';
let authServer: http.Server;
let serve: Awaited<ReturnType<typeof startHttpServe>>;
const harnesses: McpHarness[] = [];

beforeAll(async () => {
  jose = await import('jose');
  requireBuiltCli();
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello from the shared workspace\n');
  const authPort = await freePort();
  const gatewayPort = await freePort();
  issuer = `http://127.0.0.1:${authPort}`;
  gateway = `http://127.0.0.1:${gatewayPort}/mcp`;
  otherResource = `http://127.0.0.1:${authPort}/other-api`;
  const { default: Provider, errors } = await import('oidc-provider');
  const { loopbackIssuerConfig } = await import('../fixtures/servers/loopbackIssuer.mjs');
  const client = (id: string) => ({ client_id: id, client_secret: `${id}-secret`, grant_types: ['client_credentials'], response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic' as const, scope: SCOPE });
  const provider = new Provider(
    issuer,
    loopbackIssuerConfig({ signingKey, resources: [gateway, otherResource], errors, clients: [client('alice-laptop'), client('bob-ci')], features: { clientCredentials: { enabled: true } } }),
  );
  authServer = http.createServer(provider.callback());
  await new Promise<void>((resolve) => authServer.listen(authPort, '127.0.0.1', resolve));
  serve = await startHttpServe(
    ['--http', `127.0.0.1:${gatewayPort}`, '--workspace', ws, '--audit-log', auditFile, '--oauth-issuer', issuer, '--oauth-scope', SCOPE],
    { ...tag.env, MCP_HARNESS_TOKEN: '' },
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(harnesses.map((h) => h.dispose()));
  await serve?.stop();
  await new Promise((resolve) => authServer?.close(resolve));
  expect(await waitForNoProcesses(tag.alive)).toEqual([]);
  tmp.cleanup();
});

/** A token straight from the authorization server's token endpoint (client credentials, RFC 8707 resource). */
async function tokenFor(clientId: string, resource: string): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPE, resource }),
  });
  const body = (await response.json()) as { access_token?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.access_token!;
}

/** A JWT with the issuer's claims, signed by `key` under the issuer's key id. */
function signed(key: typeof signingKey.privateKey, claims: { aud: string; exp: number; scope?: string }): Promise<string> {
  return new jose.SignJWT({ scope: claims.scope ?? SCOPE, client_id: 'alice-laptop' })
    .setProtectedHeader({ alg: 'ES256', kid: 'signing', typ: 'at+jwt' })
    .setIssuer(issuer)
    .setSubject('alice-laptop')
    .setAudience(claims.aud)
    .setIssuedAt(claims.exp - 600)
    .setExpirationTime(claims.exp)
    .sign(key);
}

async function listTools(token: string | undefined): Promise<Response> {
  return fetch(gateway, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }),
  });
}

const metadataUrl = () => `${new URL(gateway).origin}/.well-known/oauth-protected-resource/mcp`;

describe('serve --http --oauth-issuer', () => {
  it('publishes protected resource metadata naming the issuer', async () => {
    const response = await fetch(metadataUrl());
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ resource: gateway, authorization_servers: [issuer], scopes_supported: [SCOPE] });
  });

  it('answers a request without a token 401 with a challenge that names the metadata', async () => {
    const response = await listTools(undefined);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
  });

  it('lets our own client sign in through the gateway\'s metadata and call a tool, seen by name in the audit log', async () => {
    const harness = new McpHarness({
      userServers: { label: 'test', jsonPath: 'servers', entries: { team: { type: 'http', url: gateway, oauth: { grant: 'client_credentials', clientId: 'alice-laptop', clientSecret: '${env:SECRET}', issuer, scopes: [SCOPE] } } } },
      env: { SECRET: 'alice-laptop-secret' },
      reconnectDelaysMs: [],
    });
    harnesses.push(harness);
    await harness.start();
    expect(harness.servers()[0]).toMatchObject({ state: 'running' });
    const result = await harness.callTool('mcp__team__read_file', { path: 'hello.txt' });
    expect(result).toMatchObject({ isError: false, text: 'hello from the shared workspace' });
    const calls = await auditLinesWhen(auditFile, (l) => l.tool === 'read_file', 'the read_file call');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((l) => (l.client as { user?: string }).user === 'alice-laptop')).toBe(true);
  });

  it('serves the MCP Inspector CLI with a token from the same authorization server', async () => {
    const { node24, inspector } = (await ensureToolchain({ codeServer: false, inspector: true, log: () => {} })) as { node24: string; inspector: string };
    const token = await tokenFor('bob-ci', gateway);
    const home = path.join(tmp.dir, 'home');
    fs.mkdirSync(home, { recursive: true });
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(node24, [inspector, '--cli', gateway, '--transport', 'http', ...args], { env: { ...process.env, ...tag.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c) => (stdout += c));
        child.stderr.on('data', (c) => (stderr += c));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const called = await run(['--header', `Authorization: Bearer ${token}`, '--method', 'tools/call', '--tool-name', 'grep_search', '--tool-arg', 'pattern=shared']);
    expect(called.code, called.stderr).toBe(0);
    expect(JSON.parse(called.stdout)).toMatchObject({ content: [{ type: 'text', text: 'hello.txt:1: hello from the shared workspace' }] });
    expect(await auditLinesWhen(auditFile, (l) => l.tool === 'grep_search' && (l.client as { user?: string }).user === 'bob-ci', "bob-ci's call")).not.toEqual([]);
  }, 60_000);

  it.each([
    ['a token for another audience', async () => tokenFor('alice-laptop', otherResource), 'another audience'],
    ['an expired token', async () => signed(signingKey.privateKey, { aud: gateway, exp: Math.floor(Date.now() / 1000) - 60 }), 'expired'],
    ['a forged token', async () => signed(strangerKey.privateKey, { aud: gateway, exp: Math.floor(Date.now() / 1000) + 600 }), 'signature'],
  ])('refuses %s with 401 and a challenge that names the metadata', async (_what, make, reason) => {
    const response = await listTools(await make());
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(reason);
  });

  it('answers a valid token without the required scope 403 insufficient_scope', async () => {
    const response = await listTools(await signed(signingKey.privateKey, { aud: gateway, exp: Math.floor(Date.now() / 1000) + 600, scope: 'openid' }));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it.each([
    [['--oauth-issuer', 'http://127.0.0.1:1'], '--oauth-issuer needs --http'],
    [['--http', '0', '--oauth-issuer', 'login.example.com'], '--oauth-issuer expects an http(s) URL, got "login.example.com"'],
    [['--http', '0', '--oauth-scope', 'mcp:tools'], '--oauth-scope needs --oauth-issuer'],
  ])('names what is wrong with the OAuth flags: %j', (flags, message) => {
    const result = spawnSync(process.execPath, [cli, 'serve', '--workspace', ws, ...flags], { encoding: 'utf8', env: { ...process.env, ...tag.env } });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('accepts a valid token from the issuer directly', async () => {
    expect((await listTools(await tokenFor('alice-laptop', gateway))).status).toBe(200);
  });
});
