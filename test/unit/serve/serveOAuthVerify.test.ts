import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, ServeOAuth } from '../../../src/core/serve/ServeOAuth';
import { loopbackIssuer } from './loopbackIssuer';

// Tokens are real JWTs signed by a key whose JWKS a loopback server publishes (jose fetches it).
const RESOURCE = 'http://127.0.0.1:8123/mcp';
let idp: Awaited<ReturnType<typeof loopbackIssuer>>;
beforeAll(async () => {
  idp = await loopbackIssuer();
});
afterAll(() => idp.close());

const oauth = (scopes?: string[]) => new ServeOAuth({ issuer: idp.issuer, jwksUri: idp.jwksUri, ...(scopes ? { scopes } : {}) });

describe('ServeOAuth.verify', () => {
  it('names the caller by subject with its client and scopes', async () => {
    const token = await idp.sign({ aud: RESOURCE, sub: 'alice', client_id: 'laptop', scope: 'mcp:tools  extra' });
    expect(await oauth(['mcp:tools']).verify(token, RESOURCE)).toEqual({ ok: true, value: { subject: 'alice', clientId: 'laptop', scopes: ['mcp:tools', 'extra'] } });
  });

  it('reads scopes from an scp array, skipping entries that are not strings', async () => {
    const token = await idp.sign({ aud: RESOURCE, sub: 'bob', scp: ['mcp:tools', 7, 'read'] });
    expect(await oauth(['mcp:tools']).verify(token, RESOURCE)).toEqual({ ok: true, value: { subject: 'bob', scopes: ['mcp:tools', 'read'] } });
  });

  it('names a machine identity by its client_id when the token has no subject', async () => {
    const token = await idp.sign({ aud: RESOURCE, client_id: 'ci-job' });
    expect(await oauth().verify(token, RESOURCE)).toEqual({ ok: true, value: { subject: 'ci-job', clientId: 'ci-job', scopes: [] } });
  });

  it('refuses a token that names neither a subject nor a client (a numeric client_id is no name)', async () => {
    const token = await idp.sign({ aud: RESOURCE, client_id: 42 });
    expect(await oauth().verify(token, RESOURCE)).toEqual({ ok: false, error: { error: 'invalid_token', description: 'the token names no subject (sub) and no client_id' } });
  });

  it('refuses a token without every required scope as insufficient_scope, naming the missing ones', async () => {
    const token = await idp.sign({ aud: RESOURCE, sub: 'alice', scope: 'read' });
    expect(await oauth(['mcp:tools', 'read', 'mcp:admin']).verify(token, RESOURCE)).toEqual({
      ok: false,
      error: { error: 'insufficient_scope', description: 'the token lacks the scope mcp:tools mcp:admin' },
    });
    const none = await idp.sign({ aud: RESOURCE, sub: 'alice' });
    expect(await oauth(['mcp:tools']).verify(none, RESOURCE)).toMatchObject({ ok: false, error: { error: 'insufficient_scope' } });
  });

  it.each([
    ['an expired token', { sub: 'a', aud: RESOURCE, expiresIn: -120 }, {}, 'the token has expired'],
    ['a token for another audience', { sub: 'a', aud: 'http://127.0.0.1:1/other' }, {}, 'the token is for another audience, not this gateway'],
    ['a token from another issuer', { sub: 'a', aud: RESOURCE, iss: 'http://127.0.0.1:2' }, {}, 'the token was issued by another authorization server'],
    ['a token without an expiry', { sub: 'a', aud: RESOURCE, expiresIn: null }, {}, 'the token\'s "exp" claim is not valid'],
    ['a forged token', { sub: 'a', aud: RESOURCE }, { stranger: true }, "the token's signature does not verify with the issuer's keys"],
    ['a token signed with a key the issuer does not publish', { sub: 'a', aud: RESOURCE }, { kid: 'unknown' }, "the token's signature does not verify with the issuer's keys"],
  ])('refuses %s as invalid_token, saying why', async (_what, claims, how: { stranger?: boolean; kid?: string }, description) => {
    const token = await idp.sign(claims, { ...(how.stranger ? { key: idp.strangerKey } : {}), ...(how.kid ? { kid: how.kid } : {}) });
    expect(await oauth().verify(token, RESOURCE)).toEqual({ ok: false, error: { error: 'invalid_token', description } });
  });
});

describe('ServeOAuth key discovery', () => {
  const recording = (urls: string[], answer?: (url: string) => Response | undefined): typeof fetch =>
    (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      urls.push(url);
      return answer?.(url) ?? fetch(input, init);
    }) as typeof fetch;

  it('looks for the keys in the OAuth metadata first, then OpenID Connect, with the issuer path after the well-known part', async () => {
    const tenant = await loopbackIssuer('/tenant/');
    try {
      tenant.documents.set('/tenant/.well-known/openid-configuration', { jwks_uri: tenant.jwksUri });
      const urls: string[] = [];
      const verifier = new ServeOAuth({ issuer: tenant.issuer }, recording(urls));
      const token = await tenant.sign({ aud: RESOURCE, sub: 'alice' });
      expect(await verifier.verify(token, RESOURCE)).toMatchObject({ ok: true, value: { subject: 'alice' } });
      expect(urls).toEqual([
        `${tenant.origin}/.well-known/oauth-authorization-server/tenant`,
        `${tenant.origin}/.well-known/openid-configuration/tenant`,
        `${tenant.origin}/tenant/.well-known/openid-configuration`,
      ]);
      expect(tenant.requests.filter((r) => r === '/jwks')).toHaveLength(1);
      // The keys found are kept: a second token discovers nothing again.
      expect(await verifier.verify(await tenant.sign({ aud: RESOURCE, sub: 'bob' }), RESOURCE)).toMatchObject({ ok: true, value: { subject: 'bob' } });
      expect(urls).toHaveLength(3);
    } finally {
      await tenant.close();
    }
  });

  it('takes the OAuth authorization server metadata of an issuer at the root, asking for JSON', async () => {
    idp.documents.set('/.well-known/oauth-authorization-server', { jwks_uri: idp.jwksUri });
    const seen: Array<string | undefined> = [];
    const urls: string[] = [];
    const verifier = new ServeOAuth({ issuer: idp.issuer }, (async (input: string | URL | Request, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get('accept') ?? undefined);
      return recording(urls)(input, init);
    }) as typeof fetch);
    try {
      expect(await verifier.verify(await idp.sign({ aud: RESOURCE, sub: 'alice' }), RESOURCE)).toMatchObject({ ok: true });
      expect(urls).toEqual([`${idp.origin}/.well-known/oauth-authorization-server`]);
      expect(seen).toEqual(['application/json']);
    } finally {
      idp.documents.clear();
    }
  });

  it('skips metadata that fails, is not JSON or names no jwks_uri, and says so when none does; then tries again', async () => {
    const urls: string[] = [];
    let fixed = false;
    const verifier = new ServeOAuth({ issuer: idp.issuer }, recording(urls, (url) => {
      if (url.endsWith('/oauth-authorization-server')) return fixed ? Response.json({ jwks_uri: idp.jwksUri }) : new Response('{broken', { status: 200 });
      if (url === `${idp.origin}/.well-known/openid-configuration`) return Response.json({ jwks_uri: 17 });
      throw new Error('connection refused');
    }));
    const token = await idp.sign({ aud: RESOURCE, sub: 'alice' });
    expect(await verifier.verify(token, RESOURCE)).toEqual({
      ok: false,
      error: { error: 'invalid_token', description: `the token could not be checked: could not find the keys (jwks_uri) of the issuer ${idp.issuer} in its metadata` },
    });
    expect(urls).toHaveLength(3);
    fixed = true;
    expect(await verifier.verify(token, RESOURCE)).toMatchObject({ ok: true, value: { subject: 'alice' } });
  });

  it('does not take metadata answered with an error status', async () => {
    const verifier = new ServeOAuth({ issuer: idp.issuer }, (async () => Response.json({ jwks_uri: idp.jwksUri }, { status: 500 })) as typeof fetch);
    expect(await verifier.verify(await idp.sign({ aud: RESOURCE, sub: 'alice' }), RESOURCE)).toMatchObject({ ok: false, error: { description: expect.stringContaining('could not find the keys') } });
  });

  it('publishes no scopes when none are required', () => {
    expect(new ServeOAuth({ issuer: 'https://login.example.com' }).metadata('https://mcp.example.com/mcp')).not.toHaveProperty('scopes_supported');
    expect(new ServeOAuth({ issuer: 'https://login.example.com', scopes: [] }).metadata('https://mcp.example.com/mcp')).not.toHaveProperty('scopes_supported');
  });
});

describe('authenticate with OAuth', () => {
  const digest = (text: string) => createHash('sha256').update(text).digest();

  it('names the caller of a valid access token by its subject', async () => {
    const token = await idp.sign({ aud: RESOURCE, sub: 'alice' });
    expect(await authenticate(`bearer  ${token}`, digest('static'), oauth(), RESOURCE)).toEqual({ ok: true, value: 'alice' });
    expect(await authenticate(`Bearer ${token}  `, undefined, oauth(), RESOURCE)).toEqual({ ok: true, value: 'alice' });
  });

  it('takes only a whole "Bearer <token>" header', async () => {
    for (const header of ['Token Bearer s3cret', 'Bearer s3cret extra', 'Bearer s3cret\u00a0x']) {
      expect(await authenticate(header, digest('s3cret'), undefined, RESOURCE)).toEqual({ ok: false, error: undefined });
    }
    expect(await authenticate('Bearer   s3cret', digest('s3cret'), undefined, RESOURCE)).toEqual({ ok: true, value: undefined });
  });
});
