/**
 * Client authentication at the token, introspection and revocation endpoints, over HTTP
 * (oidc/provider.ts, oidc/client-secret-check.ts, oidc/replay-detection.ts,
 * oidc/client-keys-fetch.ts): private_key_jwt with keys registered inline (every algorithm
 * discovery lists) or at a jwks_uri, client_secret_jwt, a replayed assertion refused, and a client
 * refused when it authenticates with any method but the one it is registered for. Assertions are
 * built with jose, never with Gatehouse's own code.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { basic, startServer, type TestAuthServer } from '../support/flow.ts';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const INVALID_CLIENT = { error: 'invalid_client', error_description: 'client authentication failed' };
const ASYMMETRIC_ALGS = ['RS256', 'PS256', 'ES256', 'Ed25519', 'EdDSA'] as const;

type Credentials =
  | { kind: 'basic'; clientId: string; secret: string }
  | { kind: 'post'; clientId: string; secret: string }
  | { kind: 'assertion'; clientId: string; sign: (aud: string) => Promise<string> }
  | { kind: 'raw'; clientId: string; assertion: string };

async function keyPair(alg: string): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: `${alg}-key`, alg, use: 'sig' } };
}

/** A client assertion (RFC 7523 §3) signed with `key` under `alg`. */
function assertion(clientId: string, key: CryptoKey | Uint8Array, alg: string, aud: string, jti = randomUUID()): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg, typ: 'JWT' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(aud)
    .setJti(jti)
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);
}

describe.each(TEST_ENGINES)('client authentication on %s', (engine) => {
  let server: TestAuthServer;
  let keysServer: Server;
  let keysUrl: string;
  const keysRequests: string[] = [];
  let servedJwks: { keys: JWK[] } = { keys: [] };

  beforeAll(async () => {
    server = await startServer({ engine });
    keysServer = createServer((req, res) => {
      keysRequests.push(String(req.url));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(servedJwks));
    });
    await new Promise<void>((resolve) => keysServer.listen(0, '127.0.0.1', resolve));
    keysUrl = `http://127.0.0.1:${(keysServer.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(async () => {
    await new Promise((resolve) => keysServer.close(resolve));
    await server.close();
  });

  const endpoint = (path: 'token' | 'introspect' | 'revoke') => `${server.issuer}/oauth2/v1/${path}`;

  async function post(path: 'token' | 'introspect' | 'revoke', credentials: Credentials, params: Record<string, string>) {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const body = new URLSearchParams(params);
    if (credentials.kind === 'basic' || credentials.kind === 'post') {
      if (credentials.kind === 'basic') headers.authorization = basic(credentials.clientId, credentials.secret);
      else {
        body.set('client_id', credentials.clientId);
        body.set('client_secret', credentials.secret);
      }
    } else {
      body.set('client_assertion_type', ASSERTION_TYPE);
      body.set('client_assertion', credentials.kind === 'raw' ? credentials.assertion : await credentials.sign(endpoint(path)));
    }
    const response = await fetch(endpoint(path), { method: 'POST', headers, body });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> | undefined };
  }
  const token = (credentials: Credentials) => post('token', credentials, { grant_type: 'client_credentials', scope: 'movies:read' });
  async function accessToken(credentials: Credentials): Promise<string> {
    const issued = await token(credentials);
    expect(issued).toMatchObject({ status: 200, body: { token_type: 'Bearer', scope: 'movies:read' } });
    return String(issued.body!.access_token);
  }
  const machine = { redirectUris: [] as string[], grantTypes: ['client_credentials'] };

  it('discovery lists exactly the methods and algorithms that work', async () => {
    const discovery = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    const methods = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'];
    const algs = ['HS256', ...ASYMMETRIC_ALGS];
    expect({
      token: discovery.token_endpoint_auth_methods_supported,
      tokenAlgs: discovery.token_endpoint_auth_signing_alg_values_supported,
      introspection: discovery.introspection_endpoint_auth_methods_supported,
      introspectionAlgs: discovery.introspection_endpoint_auth_signing_alg_values_supported,
      revocation: discovery.revocation_endpoint_auth_methods_supported,
      revocationAlgs: discovery.revocation_endpoint_auth_signing_alg_values_supported,
    }).toEqual({ token: methods, tokenAlgs: algs, introspection: methods, introspectionAlgs: algs, revocation: methods, revocationAlgs: algs });
  });

  it.each(ASYMMETRIC_ALGS)('private_key_jwt with a %s key registered inline gets tokens, and is refused with another key', async (alg) => {
    const clientId = `pk-${alg.toLowerCase()}`;
    const { privateKey, jwk } = await keyPair(alg);
    expect(jwk).not.toHaveProperty('d');
    await server.app.services.clients.create({ clientId, ...machine, authMethod: 'private_key_jwt', jwks: { keys: [jwk] } });
    await accessToken({ kind: 'assertion', clientId, sign: (aud) => assertion(clientId, privateKey, alg, aud) });
    // The issuer as audience is accepted too (RFC 7523 §3).
    await accessToken({ kind: 'assertion', clientId, sign: () => assertion(clientId, privateKey, alg, server.issuer) });
    const other = await keyPair(alg);
    expect(await token({ kind: 'assertion', clientId, sign: (aud) => assertion(clientId, other.privateKey, alg, aud) })).toEqual({ status: 401, body: INVALID_CLIENT });
  });

  it('private_key_jwt with keys at a jwks_uri (loopback, served by the test) gets tokens', async () => {
    const { privateKey, jwk } = await keyPair('ES256');
    servedJwks = { keys: [jwk] };
    await server.app.services.clients.create({ clientId: 'pk-by-uri', ...machine, authMethod: 'private_key_jwt', jwksUri: keysUrl });
    await accessToken({ kind: 'assertion', clientId: 'pk-by-uri', sign: (aud) => assertion('pk-by-uri', privateKey, 'ES256', aud) });
    expect(keysRequests).toContain('/jwks.json');
  });

  it('a replayed assertion is refused (invalid_client), at the same or another endpoint', async () => {
    const { privateKey, jwk } = await keyPair('ES256');
    await server.app.services.clients.create({ clientId: 'pk-replay', ...machine, authMethod: 'private_key_jwt', jwks: { keys: [jwk] } });
    const once = await assertion('pk-replay', privateKey, 'ES256', server.issuer);
    await accessToken({ kind: 'raw', clientId: 'pk-replay', assertion: once });
    expect(await token({ kind: 'raw', clientId: 'pk-replay', assertion: once })).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await post('introspect', { kind: 'raw', clientId: 'pk-replay', assertion: once }, { token: 'x' })).toEqual({ status: 401, body: INVALID_CLIENT });
    // The replay record is a row of the shared database, where every server looks.
    const rows = await server.database.db.selectFrom('oidc_payloads').select(['id', 'expires_at']).where('model', '=', 'ReplayDetection').execute();
    expect(rows.length).toBeGreaterThanOrEqual(1);
  });

  it('client_secret_jwt (HS256 with the secret) gets tokens; another secret or a replay is refused', async () => {
    const { clientSecret } = await server.app.services.clients.create({ clientId: 'hs-client', ...machine, authMethod: 'client_secret_jwt' });
    const key = new TextEncoder().encode(clientSecret);
    await accessToken({ kind: 'assertion', clientId: 'hs-client', sign: (aud) => assertion('hs-client', key, 'HS256', aud) });
    const wrong = new TextEncoder().encode(`${clientSecret}x`);
    expect(await token({ kind: 'assertion', clientId: 'hs-client', sign: (aud) => assertion('hs-client', wrong, 'HS256', aud) })).toEqual({ status: 401, body: INVALID_CLIENT });
    const once = await assertion('hs-client', key, 'HS256', server.issuer);
    await accessToken({ kind: 'raw', clientId: 'hs-client', assertion: once });
    expect(await token({ kind: 'raw', clientId: 'hs-client', assertion: once })).toEqual({ status: 401, body: INVALID_CLIENT });
    // Its secret alone, by either secret method, is not its method.
    expect(await token({ kind: 'basic', clientId: 'hs-client', secret: clientSecret! })).toEqual({ status: 401, body: INVALID_CLIENT });
    expect(await token({ kind: 'post', clientId: 'hs-client', secret: clientSecret! })).toEqual({ status: 401, body: INVALID_CLIENT });
  });

  it('the registered method is the only one accepted, at token, introspection and revocation', async () => {
    const basicSecret = (await server.app.services.clients.create({ clientId: 'only-basic', ...machine, authMethod: 'client_secret_basic' })).clientSecret!;
    const postSecret = (await server.app.services.clients.create({ clientId: 'only-post', ...machine, authMethod: 'client_secret_post' })).clientSecret!;
    const { privateKey, jwk } = await keyPair('ES256');
    await server.app.services.clients.create({ clientId: 'only-pk', ...machine, authMethod: 'private_key_jwt', jwks: { keys: [jwk] } });
    const asBasic: Credentials = { kind: 'basic', clientId: 'only-basic', secret: basicSecret };
    const asPost: Credentials = { kind: 'post', clientId: 'only-post', secret: postSecret };
    const asPk: Credentials = { kind: 'assertion', clientId: 'only-pk', sign: (aud) => assertion('only-pk', privateKey, 'ES256', aud) };
    const tokens = { basic: await accessToken(asBasic), post: await accessToken(asPost), pk: await accessToken(asPk) };

    const wrongWays: Credentials[] = [
      { kind: 'post', clientId: 'only-basic', secret: basicSecret },
      { kind: 'basic', clientId: 'only-post', secret: postSecret },
      // A client_secret_jwt assertion made with a basic client's secret.
      { kind: 'assertion', clientId: 'only-basic', sign: (aud) => assertion('only-basic', new TextEncoder().encode(basicSecret), 'HS256', aud) },
      // A private_key_jwt client has no secret to send; nor does any made-up one work.
      { kind: 'basic', clientId: 'only-pk', secret: 'some-secret-0123456789' },
      { kind: 'post', clientId: 'only-pk', secret: 'some-secret-0123456789' },
    ];
    for (const credentials of wrongWays) {
      expect(await token(credentials)).toEqual({ status: 401, body: INVALID_CLIENT });
      expect(await post('introspect', credentials, { token: tokens.basic })).toEqual({ status: 401, body: INVALID_CLIENT });
      expect(await post('revoke', credentials, { token: tokens.basic })).toEqual({ status: 401, body: INVALID_CLIENT });
    }
    // The right ways still work at introspection and revocation.
    expect(await post('introspect', asBasic, { token: tokens.basic })).toMatchObject({ status: 200, body: { active: true, client_id: 'only-basic' } });
    expect(await post('introspect', asPost, { token: tokens.post })).toMatchObject({ status: 200, body: { active: true, client_id: 'only-post' } });
    expect(await post('revoke', asPost, { token: tokens.post })).toEqual({ status: 200, body: undefined });
    expect(await post('introspect', asPost, { token: tokens.post })).toEqual({ status: 200, body: { active: false } });
  });

  it('a private_key_jwt client introspects and revokes its token with fresh assertions', async () => {
    const { privateKey, jwk } = await keyPair('PS256');
    await server.app.services.clients.create({ clientId: 'pk-introspect', ...machine, authMethod: 'private_key_jwt', jwks: { keys: [jwk] } });
    const credentials: Credentials = { kind: 'assertion', clientId: 'pk-introspect', sign: (aud) => assertion('pk-introspect', privateKey, 'PS256', aud) };
    const issued = await accessToken(credentials);
    expect(await post('introspect', credentials, { token: issued })).toMatchObject({ status: 200, body: { active: true, client_id: 'pk-introspect', scope: 'movies:read' } });
    expect(await post('revoke', credentials, { token: issued })).toEqual({ status: 200, body: undefined });
    expect(await post('introspect', credentials, { token: issued })).toEqual({ status: 200, body: { active: false } });
  });
});
