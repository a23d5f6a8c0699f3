import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authenticate, protectedResourceMetadataUrl, ServeOAuth } from '../../../src/core/serve/ServeOAuth';

const digest = (text: string) => createHash('sha256').update(text).digest();

describe('protectedResourceMetadataUrl', () => {
  it('puts the well-known path before the resource path (RFC 9728)', () => {
    expect(protectedResourceMetadataUrl('http://127.0.0.1:8123/mcp')).toBe('http://127.0.0.1:8123/.well-known/oauth-protected-resource/mcp');
    expect(protectedResourceMetadataUrl('https://mcp.example.com/')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource');
  });
});

describe('ServeOAuth.metadata', () => {
  it('names the resource, the issuer and the required scopes', () => {
    expect(new ServeOAuth({ issuer: 'https://login.example.com', scopes: ['mcp:tools'] }).metadata('https://mcp.example.com/mcp')).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://login.example.com'],
      bearer_methods_supported: ['header'],
      scopes_supported: ['mcp:tools'],
      resource_name: 'MCP Harness gateway',
    });
  });
});

describe('authenticate', () => {
  const resource = 'http://127.0.0.1:1/mcp';

  it('takes the static token, naming no caller', async () => {
    expect(await authenticate('Bearer s3cret', digest('s3cret'), undefined, resource)).toEqual({ ok: true, value: undefined });
  });

  it('refuses a missing, malformed or wrong token without a reason when there is no OAuth', async () => {
    for (const header of [undefined, 'Basic abc', 'Bearer', 'Bearer wrong']) {
      expect(await authenticate(header, digest('s3cret'), undefined, resource)).toEqual({ ok: false, error: undefined });
    }
  });

  it('checks a token that is not the static one with OAuth, and says why it is refused', async () => {
    // The issuer's keys are never fetched for a token that is not a JWT at all.
    const oauth = new ServeOAuth({ issuer: 'http://127.0.0.1:1', jwksUri: 'http://127.0.0.1:1/jwks' });
    const result = await authenticate('Bearer not-a-jwt', digest('s3cret'), oauth, resource);
    expect(result).toEqual({ ok: false, error: { error: 'invalid_token', description: 'the token is not a valid JWT (ERR_JWS_INVALID)' } });
  });
});
