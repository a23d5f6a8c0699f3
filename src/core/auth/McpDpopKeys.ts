import { createHash, webcrypto } from 'node:crypto';
import { DpopSession, generateDpopKeyPair, type DpopAlg, type DpopKeyPair } from '@modelcontextprotocol/client';
import type { IMcpSecretStore } from './types';

type JWK = DpopKeyPair['publicJwk'];

/** The key under which a server's DPoP key pair is kept, beside its tokens. */
export function dpopSecretKey(serverUrl: string): string {
  return `mcp-harness.dpop/${serverUrl}`;
}

interface StoredDpopKey {
  readonly alg: DpopAlg;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/** Sessions made in this process, per store and server: one key and one set of nonces for every provider of a server. */
const sessions = new WeakMap<IMcpSecretStore, Map<string, Promise<DpopSession>>>();

/**
 * The DPoP session (RFC 9449) of one MCP server: its key pair lives in the secret store with the
 * tokens it binds (a DPoP-bound refresh token is worth nothing without it), made at first use.
 * A key that cannot be read is replaced; the tokens bound to the old one then fail and the
 * server asks for a sign-in, as with lost tokens.
 */
export function dpopSession(secrets: IMcpSecretStore, serverUrl: string): Promise<DpopSession> {
  let byServer = sessions.get(secrets);
  if (!byServer) sessions.set(secrets, (byServer = new Map()));
  const key = dpopSecretKey(serverUrl);
  let session = byServer.get(key);
  if (!session) {
    session = loadOrCreate(secrets, key);
    byServer.set(key, session);
    const map = byServer;
    session.catch(() => map.delete(key));
  }
  return session;
}

async function loadOrCreate(secrets: IMcpSecretStore, key: string): Promise<DpopSession> {
  const stored = readStored(await secrets.get(key));
  if (stored) {
    const keyPair = await importKeyPair(stored).catch(() => undefined);
    if (keyPair) return DpopSession.create({ keyPair });
  }
  const keyPair = await generateDpopKeyPair({ alg: 'ES256', extractable: true });
  const privateJwk = (await webcrypto.subtle.exportKey('jwk', keyPair.privateKey)) as JWK;
  const value: StoredDpopKey = { alg: keyPair.alg, privateJwk, publicJwk: keyPair.publicJwk };
  await secrets.set(key, JSON.stringify(value));
  return DpopSession.create({ keyPair });
}

async function importKeyPair(stored: StoredDpopKey): Promise<DpopKeyPair> {
  const params = { name: 'ECDSA', namedCurve: 'P-256' } as const;
  const privateKey = await webcrypto.subtle.importKey('jwk', stored.privateJwk as webcrypto.JsonWebKey, params, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', stored.publicJwk as webcrypto.JsonWebKey, params, true, ['verify']);
  return { privateKey: privateKey as DpopKeyPair['privateKey'], publicKey: publicKey as DpopKeyPair['publicKey'], publicJwk: stored.publicJwk, thumbprint: ecThumbprint(stored.publicJwk), alg: stored.alg };
}

/** RFC 7638 thumbprint of an EC public key: SHA-256 of its required members in lexicographic order. */
function ecThumbprint(jwk: JWK): string {
  const { crv, kty, x, y } = jwk as { crv?: string; kty?: string; x?: string; y?: string };
  return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
}

function readStored(raw: string | undefined): StoredDpopKey | undefined {
  if (raw === undefined) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<StoredDpopKey>;
    return value.alg === 'ES256' && value.privateJwk && value.publicJwk ? (value as StoredDpopKey) : undefined;
  } catch {
    return undefined;
  }
}
