import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeOAuth } from '../../../src/core/serve/ServeOAuth';
import { client, initialize, listen, post, recordingAudit } from './listenerRig';
import { loopbackIssuer } from './loopbackIssuer';

// The gateway behind an authorization server: its tokens are JWTs whose keys a loopback server publishes.
let idp: Awaited<ReturnType<typeof loopbackIssuer>>;
beforeAll(async () => {
  idp = await loopbackIssuer();
});
afterAll(() => idp.close());

async function oauthListener(options: { token?: string; resource?: string; scopes?: string[] } = {}) {
  const audit = recordingAudit();
  const oauth = new ServeOAuth({ issuer: idp.issuer, jwksUri: idp.jwksUri, ...(options.scopes ? { scopes: options.scopes } : {}) });
  const rig = await listen({ token: options.token, oauth, ...(options.resource ? { resource: options.resource } : {}) }, { audit: audit.sink });
  const metadataUrl = `${new URL(rig.url).origin}/.well-known/oauth-protected-resource/mcp`;
  return { ...rig, audit, metadataUrl };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('ServeHttpListener with OAuth', () => {
  it('publishes its protected resource metadata at both well-known paths, to GET only', async () => {
    const { url, metadataUrl, listener } = await oauthListener({ scopes: ['mcp:tools'] });
    expect(listener.metadataUrl).toBe(metadataUrl);
    for (const path of [metadataUrl, `${new URL(url).origin}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('max-age=300');
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(await response.json()).toMatchObject({ resource: url, authorization_servers: [idp.issuer], scopes_supported: ['mcp:tools'] });
    }
    expect((await fetch(metadataUrl, { method: 'POST' })).status).toBe(404);
    expect((await fetch(metadataUrl, { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
  });

  it('has no metadata to publish without OAuth', async () => {
    const { url } = await listen();
    expect((await fetch(`${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
  });

  it('answers a request without a token 401 with a challenge naming the metadata and the issuer', async () => {
    const { url, metadataUrl } = await oauthListener();
    const response = await fetch(url, { method: 'POST', body: initialize });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(await response.json()).toMatchObject({ error: { code: -32000, message: `unauthorized: send an OAuth access token from ${idp.issuer} ("Authorization: Bearer <token>")` } });
  });

  it('says why a token was refused, 401 for a bad token and 403 for a missing scope', async () => {
    const { url, metadataUrl } = await oauthListener({ scopes: ['mcp:tools'] });
    const noExpiry = await post(url, initialize, bearer(await idp.sign({ aud: url, sub: 'alice', scope: 'mcp:tools', expiresIn: null })));
    expect(noExpiry.status).toBe(401);
    expect(noExpiry.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${metadataUrl}", error="invalid_token", error_description="the token's 'exp' claim is not valid"`,
    );
    expect(await noExpiry.json()).toMatchObject({ error: { code: -32000, message: 'unauthorized: the token\'s "exp" claim is not valid' } });
    const noScope = await post(url, initialize, bearer(await idp.sign({ aud: url, sub: 'alice' })));
    expect(noScope.status).toBe(403);
    expect(noScope.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('takes tokens for the resource it was told it is, and names the caller in the audit log', async () => {
    const resource = 'https://mcp.team.example/mcp';
    const { url, listener, audit } = await oauthListener({ resource });
    expect(listener.resource).toBe(resource);
    expect(listener.metadataUrl).toBe('https://mcp.team.example/.well-known/oauth-protected-resource/mcp');
    expect((await post(url, initialize, bearer(await idp.sign({ aud: url, sub: 'alice' })))).status).toBe(401);
    const token = await idp.sign({ aud: resource, sub: 'alice' });
    const modern = await client(url, { modern: true, token });
    expect(await modern.callTool({ name: 'mcp__docs__echo', arguments: { text: 'hi' } })).toMatchObject({ content: [{ text: 'hi' }] });
    expect(audit.starts.at(-1)?.client).toMatchObject({ transport: 'http', user: 'alice' });
  });

  it('keeps a session to the caller that opened it', async () => {
    const { url, audit } = await oauthListener({ token: 'secret-token' });
    const alice = bearer(await idp.sign({ aud: url, sub: 'alice' }));
    const opened = await post(url, initialize, alice);
    const session = opened.headers.get('mcp-session-id')!;
    const sessionHeaders = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await post(url, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { ...alice, ...sessionHeaders });
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'mcp__docs__echo', arguments: { text: 'mine' } } });
    expect((await post(url, call, { ...alice, ...sessionHeaders })).status).toBe(200);
    expect(audit.starts.at(-1)?.client).toMatchObject({ user: 'alice', sessionId: session });
    const bob = await post(url, call, { ...bearer(await idp.sign({ aud: url, sub: 'bob' })), ...sessionHeaders });
    expect(bob.status).toBe(403);
    expect(await bob.json()).toMatchObject({ error: { code: -32000, message: 'forbidden: this session belongs to another caller' } });
    expect((await post(url, call, sessionHeaders)).status).toBe(403);
  });

  it('answers 500 and logs when it cannot even describe where its metadata is', async () => {
    const { url, logs } = await oauthListener({ resource: 'not a url' });
    const response = await fetch(url, { method: 'POST', body: initialize });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ error: { code: -32603, message: 'internal error' } });
    expect(logs).toEqual([expect.stringMatching(/^request failed: .*Invalid URL/)]);
  });
});
