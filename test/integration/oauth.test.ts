import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, oauthSecretKey, type McpHarness, type McpLogEntry } from '../../src/core';
import { CliAuthHost, FileSecretStore } from '../../src/cli/CliAuthHost';
import { processTag, waitForNoProcesses } from '../support/leaks';
import { repoPath, startProcess, tempDir, writeJson } from '../support/servers';

const oauthServer = repoPath('test/fixtures/servers/oauth.mjs');

/** A user agent that follows the authorization server's redirects back to the loopback receiver. */
async function browse(url: URL, visited: string[]): Promise<void> {
  let next: string | null = url.href;
  for (let hops = 0; next && hops < 5; hops++) {
    visited.push(next);
    const response: Response = await fetch(next, { redirect: 'manual' });
    next = response.status >= 300 && response.status < 400 ? new URL(response.headers.get('location')!, next).href : null;
    await response.arrayBuffer();
  }
}

// Sign-in through the CLI's auth host (loopback redirect, 0600 token file) against an
// OAuth-protected server of ours and its authorization server.
describe('OAuth sign-in', () => {
  const tag = processTag();
  const tmp = tempDir();
  const tokenFile = path.join(tmp.dir, 'config', 'oauth.json');
  const logs: McpLogEntry[] = [];
  const visited: string[] = [];
  const confirmations: string[] = [];
  const harnesses: McpHarness[] = [];
  let base: string;
  let stop: () => Promise<void>;
  let configFile: string;

  const stats = async () => (await fetch(`${base}/test/stats`)).json() as Promise<Record<string, unknown>>;
  const control = async (what: 'expire' | 'revoke') => void (await fetch(`${base}/test/${what}`, { method: 'POST' })).arrayBuffer();

  async function openHarness(allowSignIn: boolean): Promise<McpHarness> {
    const host = new CliAuthHost({
      secrets: new FileSecretStore(tokenFile),
      allowSignIn,
      open: (url) => browse(url, visited),
      say: (line) => confirmations.push(line),
    });
    const harness = await createHarness({ configFiles: [configFile], authHost: host, traceEnabled: () => true, reconnectDelaysMs: [50] });
    harness.onDidLog((e) => logs.push(e));
    harnesses.push(harness);
    return harness;
  }

  const state = (h: McpHarness) => h.servers().find((s) => s.name === 'secure')!;

  beforeAll(async () => {
    const server = await startProcess(process.execPath, [oauthServer], { env: tag.env, ready: /listening \d+/ });
    stop = server.stop;
    base = `http://127.0.0.1:${/listening (\d+)/.exec(server.output())![1]}`;
    configFile = writeJson(tmp.dir, 'ws/.mcp.json', { mcpServers: { secure: { url: `${base}/mcp` } } });
  });

  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.dispose()));
    await stop?.();
    expect(await waitForNoProcesses(tag.alive)).toEqual([]);
    tmp.cleanup();
  });

  it('shows "sign-in required" instead of an error until the user signs in', async () => {
    const harness = await openHarness(false);
    expect(state(harness)).toMatchObject({ state: 'auth_required', error: 'sign-in required' });
    expect(visited).toEqual([]);
    const call = await harness.callTool('mcp__secure__whoami', {});
    expect(call).toMatchObject({ isError: true, errorKind: 'unavailable' });
    expect(call.text).toContain('sign-in required');
  });

  it('signs in: discovery, registration, PKCE authorization with the resource, loopback redirect, tokens in a 0600 file', async () => {
    const harness = await openHarness(true);
    await harness.signIn('secure');
    expect(state(harness).state).toBe('running');
    expect(state(harness).error).toBeUndefined();
    expect(confirmations[0]).toBe(`Signing in to secure at 127.0.0.1:${new URL(base).port}: your browser opens; finish there.`);
    const authorize = new URL(visited.find((u) => u.startsWith(`${base}/authorize`))!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('resource')).toBe(`${base}/mcp`);
    expect(authorize.searchParams.get('scope')).toBe('mcp:tools');
    expect(visited.at(-1)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
    expect((await harness.callTool('mcp__secure__whoami', {})).text).toMatch(/^client-\S+ mcp:tools$/);
    expect(await stats()).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1, lastResource: `${base}/mcp` });
    if (process.platform !== 'win32') expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
  });

  it('uses the saved sign-in on the next start, and refreshes an expired token without the browser', async () => {
    const harness = await openHarness(false);
    expect(state(harness).state).toBe('running');
    await control('expire');
    expect((await harness.callTool('mcp__secure__echo', { text: 'after expiry' })).text).toBe('after expiry');
    expect(await stats()).toMatchObject({ authorizations: 1, refreshes: 1 });
  });

  it('says "sign in again" when the refresh token was revoked', async () => {
    const harness = harnesses.at(-1)!;
    await control('revoke');
    await control('expire');
    const call = await harness.callTool('mcp__secure__echo', { text: 'x' });
    expect(call).toMatchObject({ isError: true });
    expect(call.text).toContain('sign in again');
    await harness.whenSettled();
    expect(state(harness)).toMatchObject({ state: 'auth_required' });
    expect(state(harness).error).toContain('sign in again');
    expect(await stats()).toMatchObject({ authorizations: 1 });
  });

  it('never writes tokens, codes or the PKCE verifier to the logs', () => {
    const stored = JSON.parse(fs.readFileSync(tokenFile, 'utf8')) as Record<string, string>;
    const secrets = new Set<string>();
    const collect = (value: unknown, key = ''): void => {
      if (typeof value === 'string' && /token|secret/.test(key) && value.length >= 16) secrets.add(value);
      else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) collect(v, k);
    };
    for (const raw of Object.values(stored)) collect(JSON.parse(raw));
    const codes = visited.flatMap((u) => [new URL(u).searchParams.get('code')]).filter((c): c is string => !!c);
    expect(codes.length).toBeGreaterThan(0);
    const text = logs.map((e) => e.message).join('\n');
    expect(logs.some((e) => e.source === 'rpc')).toBe(true);
    for (const secret of [...secrets, ...codes]) expect(text).not.toContain(secret);
  });

  it('signs out: the saved sign-in is forgotten and the server asks again', async () => {
    const harness = await openHarness(true);
    await harness.signIn('secure');
    expect(state(harness).state).toBe('running');
    await harness.signOut('secure');
    expect(state(harness)).toMatchObject({ state: 'auth_required', error: 'sign-in required' });
    const stored = JSON.parse(fs.readFileSync(tokenFile, 'utf8')) as Record<string, string>;
    expect(stored[oauthSecretKey(`${base}/mcp`)]).toBeUndefined();
  });
});

/** An OAuth fixture server on loopback, with harnesses signing in through the CLI's auth host. */
function oauthRig(flags: string[]) {
  const tag = processTag();
  const tmp = tempDir();
  const tokenFile = path.join(tmp.dir, 'config', 'oauth.json');
  const visited: string[] = [];
  const logs: McpLogEntry[] = [];
  const harnesses: McpHarness[] = [];
  const rig = {
    base: '',
    visited,
    logs,
    stop: async () => undefined as void,
    configFile: '',
    stats: async () => (await fetch(`${rig.base}/test/stats`)).json() as Promise<Record<string, unknown>>,
    control: async (what: 'expire' | 'revoke') => void (await fetch(`${rig.base}/test/${what}`, { method: 'POST' })).arrayBuffer(),
    /** A new harness (as after a restart) reading the same token file; it may open the browser. */
    async open(openBrowser: (url: URL) => Promise<void> = (url) => browse(url, visited)): Promise<McpHarness> {
      const host = new CliAuthHost({ secrets: new FileSecretStore(tokenFile), allowSignIn: true, open: openBrowser, say: () => undefined });
      const harness = await createHarness({ configFiles: [rig.configFile], authHost: host, reconnectDelaysMs: [50] });
      harness.onDidLog((e) => logs.push(e));
      harnesses.push(harness);
      return harness;
    },
    /** The `scope` of each authorization request the browser was sent to. */
    authorizationScopes: () => visited.filter((u) => u.startsWith(`${rig.base}/authorize`)).map((u) => new URL(u).searchParams.get('scope')),
    async start() {
      const server = await startProcess(process.execPath, [oauthServer, ...flags], { env: tag.env, ready: /listening \d+/ });
      rig.stop = server.stop;
      rig.base = `http://127.0.0.1:${/listening (\d+)/.exec(server.output())![1]}`;
      rig.configFile = writeJson(tmp.dir, 'ws/.mcp.json', { mcpServers: { secure: { url: `${rig.base}/mcp` } } });
    },
    async dispose() {
      await Promise.all(harnesses.map((h) => h.dispose()));
      await rig.stop();
      expect(await waitForNoProcesses(tag.alive)).toEqual([]);
      tmp.cleanup();
    },
  };
  return rig;
}

const secureState = (h: McpHarness) => h.servers().find((s) => s.name === 'secure')!;

// The fixture's authorization server rotates refresh tokens and refuses one used twice: a second
// refresh with the same token would lose the sign-in.
describe('OAuth refresh, one at a time', () => {
  const rig = oauthRig([]);
  beforeAll(() => rig.start());
  afterAll(() => rig.dispose());

  it('answers ten calls refused together with an expired token with one refresh grant', async () => {
    const first = await rig.open();
    await first.signIn('secure');
    expect(secureState(first).state).toBe('running');
    await rig.control('expire');
    const calls = await Promise.all(Array.from({ length: 10 }, (_, i) => first.callTool('mcp__secure__echo', { text: `call ${i}` })));
    expect(calls.map((c) => c.text)).toEqual(Array.from({ length: 10 }, (_, i) => `call ${i}`));
    expect(await rig.stats()).toMatchObject({ authorizations: 1, refreshes: 1, refusedRefreshes: 0 });
  });

  it('after a restart, ten calls with an expired token again need one refresh, and the rotated token is kept', async () => {
    const again = await rig.open();
    expect(secureState(again).state).toBe('running');
    await rig.control('expire');
    const calls = await Promise.all(Array.from({ length: 10 }, () => again.callTool('mcp__secure__whoami', {})));
    for (const call of calls) expect(call).toMatchObject({ isError: false });
    expect(await rig.stats()).toMatchObject({ authorizations: 1, refreshes: 2, refusedRefreshes: 0 });
    // The newest refresh token was stored: one more expiry is refreshed with it, no browser.
    await rig.control('expire');
    expect((await again.callTool('mcp__secure__echo', { text: 'still signed in' })).text).toBe('still signed in');
    expect(await rig.stats()).toMatchObject({ authorizations: 1, refreshes: 3, refusedRefreshes: 0 });
  });
});

// Step-up asks for what was granted plus what the server demands, also when the tokens came from
// the store or a refresh. The fixture's token answers carry no `scope`, so the client must record it.
describe('OAuth step-up keeps the scopes already granted', () => {
  const rig = oauthRig(['--omit-token-scope', '--step-up=admin:mcp:admin']);
  beforeAll(() => rig.start());
  afterAll(() => rig.dispose());

  it('mid-session: the step-up authorization asks for both scopes', async () => {
    const harness = await rig.open();
    await harness.signIn('secure');
    expect(rig.authorizationScopes()).toEqual(['mcp:tools']);
    const call = await harness.callTool('mcp__secure__admin', {});
    expect(call).toMatchObject({ isError: false, text: 'mcp:tools mcp:admin' });
    expect(rig.authorizationScopes()).toEqual(['mcp:tools', 'mcp:tools mcp:admin']);
    await harness.signOut('secure');
  });

  it('calls refused together for more access share one step-up: one confirmation, one authorization', async () => {
    const harness = await rig.open();
    await harness.signIn('secure');
    const before = rig.authorizationScopes().length;
    const calls = await Promise.all(Array.from({ length: 4 }, () => harness.callTool('mcp__secure__admin', {})));
    expect(calls.map((c) => c.text)).toEqual(Array(4).fill('mcp:tools mcp:admin'));
    expect(rig.authorizationScopes().slice(before)).toEqual(['mcp:tools mcp:admin']);
    await harness.signOut('secure');
  });

  it('a call cancelled during a shared step-up ends alone: the others get their answers from the one sign-in', async () => {
    const stop = new AbortController();
    let opened = 0;
    // The sign-in's browser step goes straight on; during the step-up's, the first call is
    // cancelled while the browser is still on its way, then the browser goes on.
    const harness = await rig.open(async (url) => {
      if (++opened === 2) {
        // The other calls are refused too and wait on this step-up; then the first one is stopped.
        await new Promise((r) => setTimeout(r, 300));
        stop.abort();
        await new Promise((r) => setTimeout(r, 200));
      }
      await browse(url, rig.visited);
    });
    await harness.signIn('secure');
    const before = rig.authorizationScopes().length;
    const first = harness.callTool('mcp__secure__admin', {}, { signal: stop.signal });
    const others = Array.from({ length: 3 }, () => harness.callTool('mcp__secure__admin', {}));
    const [cancelled, ...answered] = await Promise.all([first, ...others]);
    expect(cancelled).toMatchObject({ isError: true, errorKind: 'cancelled' });
    expect(answered.map((c) => c.text)).toEqual(Array(3).fill('mcp:tools mcp:admin'));
    // One step-up answers them all (a refusal that came after the stop would start its own).
    expect(new Set(rig.authorizationScopes().slice(before))).toEqual(new Set(['mcp:tools mcp:admin']));
    await harness.signOut('secure');
  });

  it('after a restart and a refresh: the demand is reported, and signing in asks for both scopes', async () => {
    const first = await rig.open();
    await first.signIn('secure');
    expect(rig.authorizationScopes().at(-1)).toBe('mcp:tools');
    await first.dispose();

    const restarted = await rig.open();
    expect(secureState(restarted).state).toBe('running');
    await rig.control('expire');
    expect((await restarted.callTool('mcp__secure__echo', { text: 'refreshed' })).text).toBe('refreshed');
    const refused = await restarted.callTool('mcp__secure__admin', {});
    expect(refused).toMatchObject({ isError: true, errorKind: 'unavailable' });
    expect(refused.text).toContain('the server asks for more access (mcp:admin)');
    // The saved sign-in still serves the other tools.
    expect(secureState(restarted).state).toBe('running');
    expect((await restarted.callTool('mcp__secure__echo', { text: 'still' })).text).toBe('still');

    const authorizationsBefore = rig.authorizationScopes().length;
    await restarted.signIn('secure');
    expect(rig.authorizationScopes().slice(authorizationsBefore)).toEqual(['mcp:tools mcp:admin']);
    expect((await restarted.callTool('mcp__secure__admin', {})).text).toBe('mcp:tools mcp:admin');
  });
});
