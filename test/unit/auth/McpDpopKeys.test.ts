import { describe, expect, it } from 'vitest';
import { dpopSecretKey, dpopSession } from '../../../src/core/auth/McpDpopKeys';
import type { IMcpSecretStore } from '../../../src/core/auth/types';

/** A store over `data`; a second store over the same data is the same secrets seen by a later process. */
function store(data: Map<string, string>): IMcpSecretStore {
  return { get: async (k) => data.get(k), set: async (k, v) => void data.set(k, v), delete: async (k) => void data.delete(k) };
}

describe('dpopSession', () => {
  it('makes one key pair per server, keeps it in the secret store and finds it again after a restart', async () => {
    const data = new Map<string, string>();
    const first = await dpopSession(store(data), 'https://mcp.example.com/mcp');
    expect(await dpopSession(store(data), 'https://mcp.example.com/mcp')).not.toBe(first);
    const again = await dpopSession(store(data), 'https://mcp.example.com/mcp');
    expect(again.thumbprint).toBe(first.thumbprint);
    const other = await dpopSession(store(data), 'https://other.example.com/mcp');
    expect(other.thumbprint).not.toBe(first.thumbprint);
    expect(JSON.parse(data.get(dpopSecretKey('https://mcp.example.com/mcp'))!)).toMatchObject({ alg: 'ES256', privateJwk: { kty: 'EC', crv: 'P-256' } });
  });

  it('shares one session per store and server within a process', async () => {
    const s = store(new Map());
    expect(await dpopSession(s, 'https://a.example/mcp')).toBe(await dpopSession(s, 'https://a.example/mcp'));
  });

  it('replaces a key that cannot be read', async () => {
    const data = new Map([[dpopSecretKey('https://a.example/mcp'), 'not json']]);
    const session = await dpopSession(store(data), 'https://a.example/mcp');
    expect(session.thumbprint).toMatch(/^[\w-]{43}$/);
    expect(JSON.parse(data.get(dpopSecretKey('https://a.example/mcp'))!).alg).toBe('ES256');
  });

  it('signs proofs that carry the public key and no private part', async () => {
    const session = await dpopSession(store(new Map()), 'https://b.example/mcp');
    const proof = await session.buildProof({ htm: 'POST', htu: 'https://b.example/mcp', accessToken: 'tok' });
    const header = JSON.parse(Buffer.from(proof.split('.')[0]!, 'base64url').toString()) as { typ: string; jwk: Record<string, unknown> };
    expect(header.typ).toBe('dpop+jwt');
    expect(header.jwk.d).toBeUndefined();
  });

  it('replaces a stored key made for another algorithm, and keeps the new one for the next process', async () => {
    const data = new Map<string, string>();
    const url = 'https://c.example/mcp';
    const first = await dpopSession(store(data), url);
    const stored = JSON.parse(data.get(dpopSecretKey(url))!) as Record<string, unknown>;
    data.set(dpopSecretKey(url), JSON.stringify({ ...stored, alg: 'RS256' }));
    const replaced = await dpopSession(store(data), url);
    expect(replaced.thumbprint).not.toBe(first.thumbprint);
    expect(JSON.parse(data.get(dpopSecretKey(url))!).alg).toBe('ES256');
    expect((await dpopSession(store(data), url)).thumbprint).toBe(replaced.thumbprint);
  });

  it('replaces a key whose parts do not import, and keeps the replacement', async () => {
    const data = new Map<string, string>();
    const url = 'https://d.example/mcp';
    const broken = { kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA', d: 'AAAA' };
    data.set(dpopSecretKey(url), JSON.stringify({ alg: 'ES256', privateJwk: broken, publicJwk: broken }));
    const session = await dpopSession(store(data), url);
    expect(JSON.parse(data.get(dpopSecretKey(url))!).privateJwk).not.toEqual(broken);
    expect((await dpopSession(store(data), url)).thumbprint).toBe(session.thumbprint);
  });

  it('tries again after a store that could not be read', async () => {
    const data = new Map<string, string>();
    let failures = 1;
    const flaky: IMcpSecretStore = { ...store(data), get: async (k) => (failures-- > 0 ? Promise.reject(new Error('locked')) : data.get(k)) };
    await expect(dpopSession(flaky, 'https://e.example/mcp')).rejects.toThrow('locked');
    expect((await dpopSession(flaky, 'https://e.example/mcp')).thumbprint).toMatch(/^[\w-]{43}$/);
  });
});
