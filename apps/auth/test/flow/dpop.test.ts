/**
 * DPoP (RFC 9449) at the authorization server: the algorithms discovery lists each bind a token,
 * introspection says DPoP and cnf.jkt for a bound token, userinfo takes a bound token only with a
 * valid proof, a client registered to require DPoP gets no token without a proof, and a proof is
 * used once across two instances on one database. JWT access tokens (userinfo-dpop.ts) and opaque
 * ones (oidc-provider's own userinfo and introspection) alike.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createApp, type AuthApp } from '../../src/app.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import { dpopKey, type DpopKey } from '../support/dpop.ts';
import { startTestAuthServer, type TestAuthServer } from '../support/test-auth-server.ts';

const ALGS = DPOP_SIGNING_ALGORITHMS.join(' ');
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';
/** The token endpoint's answer to a client registered to require DPoP that sent no proof. */
const DPOP_REQUIRED = { error: 'invalid_dpop_proof', error_description: 'this client is registered to require DPoP: send a DPoP proof in the DPoP header' };

interface Machine {
  readonly clientId: string;
  readonly clientSecret: string;
}

async function machine(as: TestAuthServer, clientId: string, extra: { dpopBoundAccessTokens?: boolean } = {}): Promise<Machine> {
  const clientSecret = randomBytes(24).toString('base64url');
  await as.app.services.clients.create({ clientId, redirectUris: [], grantTypes: ['client_credentials'], clientSecret, ...extra });
  return { clientId, clientSecret };
}

/** A client_credentials token request to `issuer` (the token endpoint of that instance), with a proof when given. */
function clientCredentials(issuer: string, client: Machine, proof?: string): Promise<Response> {
  return fetch(`${issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': FORM, ...(proof ? { dpop: proof } : {}) },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
  });
}

async function introspect(as: TestAuthServer, token: string): Promise<Record<string, unknown>> {
  const r = await fetch(`${as.issuer}/oauth2/v1/introspect`, {
    method: 'POST',
    headers: { authorization: basic(as.introspectionClient.clientId, as.introspectionClient.clientSecret), 'content-type': FORM },
    body: new URLSearchParams({ token }),
  });
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, unknown>;
}

function userinfo(as: TestAuthServer, authorization: string, proof?: string, method = 'GET'): Promise<Response> {
  return fetch(`${as.issuer}/oauth2/v1/userinfo`, { method, headers: { authorization, ...(proof ? { dpop: proof } : {}) } });
}

async function expectChallenge(r: Response, as: TestAuthServer, error: string, description: string): Promise<void> {
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toBe(`DPoP realm="${as.issuer}", error="${error}", error_description="${description}", algs="${ALGS}"`);
  expect(await r.json()).toEqual({ error, error_description: description });
}

describe('DPoP with JWT access tokens', () => {
  let as: TestAuthServer;
  let client: Machine;
  let key: DpopKey;
  let tokenUrl: string;
  let userinfoUrl: string;

  beforeAll(async () => {
    as = await startTestAuthServer();
    client = await machine(as, 'dpop-machine');
    key = await dpopKey();
    tokenUrl = `${as.issuer}/oauth2/v1/token`;
    userinfoUrl = `${as.issuer}/oauth2/v1/userinfo`;
  }, 60_000);
  afterAll(async () => {
    await as?.close();
  });

  it('lists in discovery exactly the proof algorithms the token endpoint, userinfo and the API accept', async () => {
    const discovery = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(discovery.dpop_signing_alg_values_supported).toEqual(['ES256', 'PS256', 'RS256', 'Ed25519', 'EdDSA']);
  });

  it.each(DPOP_SIGNING_ALGORITHMS)('binds a token to a %s key, and introspection says DPoP with its cnf.jkt', async (alg) => {
    const own = await dpopKey(alg);
    const r = await clientCredentials(as.issuer, client, await own.proof('POST', tokenUrl));
    const body = (await r.json()) as { access_token: string; token_type: string };
    expect(r.status).toBe(200);
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: own.jkt });
    expect(await introspect(as, body.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: own.jkt }, client_id: 'dpop-machine' });
  });

  it('answers Bearer and no cnf for a token without a binding', async () => {
    const body = (await (await clientCredentials(as.issuer, client)).json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('Bearer');
    expect(decodeJwt(body.access_token).cnf).toBeUndefined();
    const answer = await introspect(as, body.access_token);
    expect(answer).toMatchObject({ active: true, token_type: 'Bearer' });
    expect(answer).not.toHaveProperty('cnf');
  });

  it('refuses a token request without a proof from a client registered to require DPoP; binds the one with a proof', async () => {
    const strict = await machine(as, 'dpop-required', { dpopBoundAccessTokens: true });
    const refused = await clientCredentials(as.issuer, strict);
    expect(refused.status).toBe(400);
    // oidc-provider refuses it (sender_constraints.js checkDpopRequired); dpop-required.ts says why.
    expect(await refused.json()).toEqual(DPOP_REQUIRED);
    expect(refused.headers.get('www-authenticate')).toBeNull();
    const granted = await clientCredentials(as.issuer, strict, await key.proof('POST', tokenUrl));
    expect(granted.status).toBe(200);
    expect(((await granted.json()) as { token_type: string }).token_type).toBe('DPoP');
  });

  it('refuses a replayed proof and a proof for another URL at the token endpoint', async () => {
    const proof = await key.proof('POST', tokenUrl);
    expect((await clientCredentials(as.issuer, client, proof)).status).toBe(200);
    const replay = await clientCredentials(as.issuer, client, proof);
    expect(replay.status).toBe(400);
    // oidc-provider's answer to a replay (validate_dpop.js checkDpopReplay).
    expect(await replay.json()).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    const elsewhere = await clientCredentials(as.issuer, client, await key.proof('POST', userinfoUrl));
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toEqual({ error: 'invalid_dpop_proof', error_description: 'DPoP proof htu mismatch' });
  });

  it('gives userinfo for a bound token only as DPoP with a valid proof, each proof once', async () => {
    const { access_token: token, token_type: type } = await as.login({ scope: 'openid profile', dpop: (url) => key.proof('POST', url) });
    expect(type).toBe('DPoP');
    expect(decodeJwt(token).cnf).toEqual({ jkt: key.jkt });
    const proof = await key.proof('GET', userinfoUrl, { accessToken: token });
    const ok = await userinfo(as, `DPoP ${token}`, proof);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ sub: decodeJwt(token).sub });
    // The same proof again, by the same client or an attacker who saw it.
    await expectChallenge(await userinfo(as, `DPoP ${token}`, proof), as, 'invalid_dpop_proof', 'the DPoP proof was used before');
    const post = await key.proof('POST', userinfoUrl, { accessToken: token });
    expect((await userinfo(as, `DPoP ${token}`, post, 'POST')).status).toBe(200);

    await expectChallenge(await userinfo(as, `Bearer ${token}`), as, 'invalid_token', 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof');
    await expectChallenge(await userinfo(as, `Bearer ${token}`, await key.proof('GET', userinfoUrl, { accessToken: token })), as, 'invalid_token', 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof');
    await expectChallenge(await userinfo(as, `DPoP ${token}`), as, 'invalid_dpop_proof', 'a DPoP proof is required with this access token');
    await expectChallenge(await userinfo(as, `DPoP ${token}`, await key.proof('POST', userinfoUrl, { accessToken: token })), as, 'invalid_dpop_proof', 'the DPoP proof htm does not match the request method');
    await expectChallenge(await userinfo(as, `DPoP ${token}`, await key.proof('GET', tokenUrl, { accessToken: token })), as, 'invalid_dpop_proof', 'the DPoP proof htu does not match the request URL');
    await expectChallenge(await userinfo(as, `DPoP ${token}`, await key.proof('GET', userinfoUrl)), as, 'invalid_dpop_proof', 'the DPoP proof ath does not match the access token');
    const thief = await dpopKey();
    await expectChallenge(await userinfo(as, `DPoP ${token}`, await thief.proof('GET', userinfoUrl, { accessToken: token })), as, 'invalid_dpop_proof', 'the DPoP proof key is not the key the access token is bound to');
    const stale = Math.floor(Date.now() / 1000) - 61;
    await expectChallenge(await userinfo(as, `DPoP ${token}`, await key.proof('GET', userinfoUrl, { accessToken: token, iat: stale })), as, 'invalid_dpop_proof', 'the DPoP proof iat is outside the accepted window');
  });

  it('gives userinfo for a token without a binding as Bearer, and refuses it as DPoP', async () => {
    const { access_token: token, token_type: type } = await as.login({ scope: 'openid profile' });
    expect(type).toBe('Bearer');
    expect((await userinfo(as, `Bearer ${token}`)).status).toBe(200);
    await expectChallenge(await userinfo(as, `DPoP ${token}`, await key.proof('GET', userinfoUrl, { accessToken: token })), as, 'invalid_token', 'the access token is not bound to a DPoP key; send it as Bearer');
  });
});

describe('a client registered to require DPoP, in the code flow and at refresh', () => {
  let as: TestAuthServer;
  let key: DpopKey;

  beforeAll(async () => {
    as = await startTestAuthServer();
    await as.app.services.clients.update(as.testClient.clientId, { dpopBoundAccessTokens: true });
    key = await dpopKey();
  }, 60_000);
  afterAll(async () => {
    await as?.close();
  });

  it('gets no token for a code without a proof, and a bound one with a proof', async () => {
    await expect(as.login({ scope: 'openid movies:read' })).rejects.toThrow(
      `token answered 400: ${JSON.stringify(DPOP_REQUIRED)}`,
    );
    const issued = await as.login({ scope: 'openid movies:read', dpop: (url) => key.proof('POST', url) });
    expect(issued.token_type).toBe('DPoP');
    expect(decodeJwt(issued.access_token).cnf).toEqual({ jkt: key.jkt });
  });

  it('takes a pushed authorization request without a proof (the token request needs one)', async () => {
    const discovery = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as { pushed_authorization_request_endpoint: string };
    const pushed = await fetch(discovery.pushed_authorization_request_endpoint, {
      method: 'POST',
      headers: { authorization: basic(as.testClient.clientId, as.testClient.clientSecret), 'content-type': FORM },
      body: new URLSearchParams({ client_id: as.testClient.clientId, response_type: 'code', scope: 'openid', redirect_uri: as.testClient.redirectUri, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' }),
    });
    expect(pushed.status).toBe(201);
    expect(await pushed.json()).toMatchObject({ request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/) });
  });

  it('refreshes only with a proof', async () => {
    const { refresh_token: refreshToken } = await as.login({ scope: 'openid movies:read', dpop: (url) => key.proof('POST', url) });
    expect(refreshToken).toBeDefined();
    const refresh = (proof?: string) =>
      fetch(`${as.issuer}/oauth2/v1/token`, {
        method: 'POST',
        headers: { authorization: basic(as.testClient.clientId, as.testClient.clientSecret), 'content-type': FORM, ...(proof ? { dpop: proof } : {}) },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken! }),
      });
    const refused = await refresh();
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual(DPOP_REQUIRED);
    // An unknown refresh token is refused before the proof is looked for: that answer stays oidc-provider's.
    const unknown = await fetch(`${as.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(as.testClient.clientId, as.testClient.clientSecret), 'content-type': FORM },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' }),
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    const granted = await refresh(await key.proof('POST', `${as.issuer}/oauth2/v1/token`));
    expect(granted.status).toBe(200);
    const body = (await granted.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
  });
});

describe('DPoP with opaque access tokens (oidc-provider introspection and userinfo)', () => {
  let as: TestAuthServer;
  let client: Machine;
  let key: DpopKey;

  beforeAll(async () => {
    as = await startTestAuthServer({ tokenFormat: 'opaque' });
    client = await machine(as, 'dpop-machine');
    key = await dpopKey();
  }, 60_000);
  afterAll(async () => {
    await as?.close();
  });

  it('introspection says DPoP and cnf.jkt for a bound token, Bearer without cnf for another', async () => {
    const bound = (await (await clientCredentials(as.issuer, client, await key.proof('POST', `${as.issuer}/oauth2/v1/token`))).json()) as { access_token: string; token_type: string };
    expect(bound.token_type).toBe('DPoP');
    expect(bound.access_token.split('.')).toHaveLength(1);
    expect(await introspect(as, bound.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
    const plain = (await (await clientCredentials(as.issuer, client)).json()) as { access_token: string };
    const answer = await introspect(as, plain.access_token);
    expect(answer).toMatchObject({ active: true, token_type: 'Bearer' });
    expect(answer).not.toHaveProperty('cnf');
  });

  it('gives userinfo for a bound opaque token only with a proof', async () => {
    const { access_token: token } = await as.login({ scope: 'openid profile', dpop: (url) => key.proof('POST', url) });
    const url = `${as.issuer}/oauth2/v1/userinfo`;
    expect((await userinfo(as, `DPoP ${token}`, await key.proof('GET', url, { accessToken: token }))).status).toBe(200);
    const bearer = await userinfo(as, `Bearer ${token}`);
    expect(bearer.status).toBe(401);
    expect(bearer.headers.get('www-authenticate')).toBe(`DPoP realm="${as.issuer}", error="invalid_token", error_description="invalid token provided", algs="${ALGS}"`);
  });
});

describe.each(TEST_ENGINES)('a DPoP proof is used once across two instances on one %s database', (engine) => {
  let first: TestAuthServer;
  let second: { app: AuthApp; issuer: string; http: Server; close(): Promise<void> };
  let client: Machine;
  let key: DpopKey;

  beforeAll(async () => {
    first = await startTestAuthServer({ engine });
    client = await machine(first, 'dpop-machine');
    key = await dpopKey();
    const database = await openAuthDatabase(first.config.databaseUrl);
    const app = await createApp(first.config, { database, logger: createLogger({ level: 'silent' }) });
    const http = createServer(app.callback());
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    second = {
      app,
      http,
      issuer: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
      async close() {
        http.closeAllConnections();
        await new Promise<void>((resolve) => http.close(() => resolve()));
        await database.close();
      },
    };
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('at the token endpoint', async () => {
    // Both instances answer for the same issuer: the proof names its token endpoint.
    const proof = await key.proof('POST', `${first.issuer}/oauth2/v1/token`);
    expect((await clientCredentials(first.issuer, client, proof)).status).toBe(200);
    const replay = await clientCredentials(second.issuer, client, proof);
    expect(replay.status).toBe(400);
    // oidc-provider's answer to a replay (validate_dpop.js checkDpopReplay).
    expect(await replay.json()).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
  });

  it('at userinfo', async () => {
    const { access_token: token } = await first.login({ scope: 'openid', dpop: (url) => key.proof('POST', url) });
    const proof = await key.proof('GET', `${first.issuer}/oauth2/v1/userinfo`, { accessToken: token });
    expect((await fetch(`${second.issuer}/oauth2/v1/userinfo`, { headers: { authorization: `DPoP ${token}`, dpop: proof } })).status).toBe(200);
    const replay = await fetch(`${first.issuer}/oauth2/v1/userinfo`, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
    expect(replay.status).toBe(401);
    expect(replay.headers.get('www-authenticate')).toBe(
      `DPoP realm="${first.issuer}", error="invalid_dpop_proof", error_description="the DPoP proof was used before", algs="${ALGS}"`,
    );
  });
});
