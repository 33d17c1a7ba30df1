import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A stand-in authorization server for tests that need no real login: discovery, a JWKS with
 * rotating RS256 keys, and a scripted introspection endpoint. Listens on 127.0.0.1, port 0.
 */
export interface LocalIssuer {
  readonly issuer: string;
  readonly audience: string;
  /** How many times each path was fetched. */
  readonly hits: Map<string, number>;
  /** Signs an access token with the current key; claims and header may override the defaults. */
  sign(claims?: Record<string, unknown>, header?: Record<string, unknown>, key?: 'current' | 'foreign'): Promise<string>;
  /** Adds a new current key; the old one stays published unless `dropOld`. */
  rotate(dropOld?: boolean): Promise<void>;
  /** What the introspection endpoint answers per token (unlisted tokens are inactive). */
  readonly introspection: Map<string, Record<string, unknown>>;
  /** Credentials the introspection endpoint requires. */
  readonly introspectionClient: { clientId: string; clientSecret: string };
  /** Makes every endpoint answer 500 while true. */
  failing: boolean;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function newKey(n: number): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = `key-${n}`;
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
}

export async function startLocalIssuer(options: { audience?: string; now?: () => number } = {}): Promise<LocalIssuer> {
  const audience = options.audience ?? 'http://localhost:4000/api';
  const now = options.now ?? Date.now;
  let counter = 0;
  let keys: SigningKey[] = [await newKey(++counter)];
  const foreign = await newKey(999);
  const hits = new Map<string, number>();
  const introspection = new Map<string, Record<string, unknown>>();
  const introspectionClient = { clientId: 'api', clientSecret: 'test-api-secret' };
  let issuer = '';

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (state.failing) return json(500, { error: 'server_error' });
    if (path === '/.well-known/openid-configuration') {
      return json(200, { issuer, jwks_uri: `${issuer}/oauth2/v1/keys`, introspection_endpoint: `${issuer}/oauth2/v1/introspect` });
    }
    if (path === '/oauth2/v1/keys') return json(200, { keys: keys.map((k) => k.jwk) });
    if (path === '/oauth2/v1/introspect' && req.method === 'POST') {
      const expected = `Basic ${Buffer.from(`${introspectionClient.clientId}:${introspectionClient.clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return json(401, { error: 'invalid_client' });
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const token = new URLSearchParams(body).get('token') ?? '';
        json(200, introspection.get(token) ?? { active: false });
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const state: LocalIssuer = {
    issuer,
    audience,
    hits,
    introspection,
    introspectionClient,
    failing: false,
    async sign(claims = {}, header = {}, which = 'current') {
      const key = which === 'foreign' ? foreign : keys.at(-1)!;
      const iat = Math.floor(now() / 1000);
      const payload = {
        iss: issuer,
        sub: 'user-1',
        aud: audience,
        iat,
        exp: iat + 3600,
        jti: `jti-${Math.random().toString(36).slice(2)}`,
        client_id: 'app-one',
        scope: 'movies:read movies:write',
        groups: ['staff'],
        ...claims,
      };
      for (const [k, v] of Object.entries(payload)) if (v === undefined) delete (payload as Record<string, unknown>)[k];
      return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: key.kid, ...header }).sign(key.privateKey);
    },
    async rotate(dropOld = false) {
      const key = await newKey(++counter);
      keys = dropOld ? [key] : [...keys, key];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return state;
}
