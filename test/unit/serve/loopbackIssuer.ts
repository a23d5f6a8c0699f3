import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

type Jose = typeof import('jose', { with: { 'resolution-mode': 'import' } });

export interface TokenClaims {
  readonly iss?: string;
  readonly aud?: string;
  readonly sub?: string;
  /** Seconds from now; `null` leaves `exp` out. */
  readonly expiresIn?: number | null;
  readonly [claim: string]: unknown;
}

/**
 * An authorization server's public face on loopback: metadata documents at paths a test chooses,
 * and its JWKS, which jose fetches itself. `sign` makes access tokens with its key (or a stranger's).
 */
export async function loopbackIssuer(issuerPath = '') {
  const jose: Jose = await import('jose');
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...(await jose.exportJWK(key.publicKey)), kid: 'signing', alg: 'ES256', use: 'sig' };
  /** Path to the JSON it answers (a metadata document); anything else is 404. */
  const documents = new Map<string, unknown>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/jwks') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    if (!documents.has(req.url ?? '')) return void res.writeHead(404).end('not found');
    const body = documents.get(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}${issuerPath}`;
  const jwksUri = `${origin}/jwks`;

  const sign = (claims: TokenClaims, options: { key?: KeyObject; kid?: string } = {}): Promise<string> => {
    const { iss = issuer, aud, sub, expiresIn = 600, ...rest } = claims;
    const now = Math.floor(Date.now() / 1000);
    let jwt = new jose.SignJWT(rest as Record<string, unknown>).setProtectedHeader({ alg: 'ES256', kid: options.kid ?? 'signing', typ: 'at+jwt' }).setIssuer(iss).setIssuedAt(now - 5);
    if (aud !== undefined) jwt = jwt.setAudience(aud);
    if (sub !== undefined) jwt = jwt.setSubject(sub);
    if (expiresIn !== null) jwt = jwt.setExpirationTime(now + expiresIn);
    return jwt.sign(options.key ?? key.privateKey);
  };

  return {
    issuer,
    origin,
    jwksUri,
    documents,
    requests,
    strangerKey: stranger.privateKey,
    sign,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
