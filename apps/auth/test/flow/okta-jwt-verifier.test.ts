/**
 * Okta's own resource-server SDK verifies Gatehouse access and ID tokens with its defaults:
 * `issuer` (the AUTH_ISSUER) and nothing else; it then fetches the keys from `<issuer>/v1/keys`,
 * the path of an Okta authorization server, which serves the JWKS too (oidc/okta-keys-alias.ts).
 * Its `assertClaims` read Okta's `scp` and `cid` claims, which Gatehouse's access tokens carry as
 * copies of `scope` and `client_id` (oidc/okta-claims.ts).
 * The only extra here is `testing.disableHttpsCheck`, because this test server is plain http
 * on loopback; a production issuer is https and needs nothing else.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import OktaJwtVerifier from '@okta/jwt-verifier';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { decodeJwt, startServer, type TestAuthServer } from '../support/flow.ts';

describe.each(TEST_ENGINES)('@okta/jwt-verifier accepts Gatehouse access tokens on %s', (engine) => {
  let server: TestAuthServer;
  let verifier: OktaJwtVerifier;

  beforeAll(async () => {
    server = await startServer({ engine });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    verifier = new OktaJwtVerifier({
      issuer: server.issuer,
      assertClaims: { 'scp.includes': ['movies:read'], cid: 'test-app' },
      testing: { disableHttpsCheck: true },
    });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await server.close();
  });

  it('verifies a valid token: signature, audience, issuer, expiry and scopes', async () => {
    const tokens = await server.login({ scope: 'openid profile movies:read' });
    const jwt = await verifier.verifyAccessToken(tokens.access_token, server.audience);
    expect(jwt.header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(jwt.claims).toMatchObject({ iss: server.issuer, aud: server.audience, scope: 'openid profile movies:read', client_id: 'test-app', cid: 'test-app', scp: ['openid', 'profile', 'movies:read'] });
    expect(jwt.isExpired()).toBe(false);
  });

  it('fetches the keys from <issuer>/v1/keys, the same JWKS as the one discovery names', async () => {
    const [alias, keys] = await Promise.all([fetch(`${server.issuer}/v1/keys`), fetch(`${server.issuer}/oauth2/v1/keys`)]);
    expect(alias.status).toBe(200);
    expect(alias.headers.get('content-type')).toBe(keys.headers.get('content-type'));
    expect(await alias.json()).toEqual(await keys.json());
    expect((await fetch(`${server.issuer}/v1/other`)).status).toBe(404);
  });

  it('verifies an ID token: signature, audience (the client), issuer and nonce', async () => {
    const tokens = await server.login({ scope: 'openid profile' });
    const idVerifier = new OktaJwtVerifier({ issuer: server.issuer, testing: { disableHttpsCheck: true } });
    const jwt = await idVerifier.verifyIdToken(tokens.id_token!, 'test-app', decodeJwt(tokens.id_token!).nonce as string);
    expect(jwt.claims).toMatchObject({ iss: server.issuer, aud: 'test-app' });
    await expect(idVerifier.verifyIdToken(tokens.id_token!, 'another-app', 'n')).rejects.toThrow('audience claim test-app does not match expected client id: another-app');
  });

  it('refuses a token for another audience', async () => {
    const tokens = await server.login({ scope: 'openid profile movies:read' });
    await expect(verifier.verifyAccessToken(tokens.access_token, 'https://other-api.example')).rejects.toThrow(
      `audience claim ${server.audience} does not match expected audience: https://other-api.example`,
    );
  });

  it('refuses a token without the asserted scope (a userinfo token)', async () => {
    const tokens = await server.login({ scope: 'openid profile' });
    await expect(verifier.verifyAccessToken(tokens.access_token, `${server.issuer}/oauth2/v1/userinfo`)).rejects.toThrow(
      "claim 'scp' value 'openid,profile' does not include expected value 'movies:read'",
    );
  });

  it('refuses an expired token and a token from another issuer', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { sub: 'someone', client_id: 'test-app', cid: 'test-app', aud: server.audience, scope: 'movies:read', scp: ['movies:read'], jti: 'x1' };
    const expired = await server.sign({ ...base, iss: server.issuer, iat: now - 7200, exp: now - 3600 });
    await expect(verifier.verifyAccessToken(expired, server.audience)).rejects.toThrow('Jwt is expired');
    const foreign = await server.sign({ ...base, iss: 'https://elsewhere.example', iat: now, exp: now + 600 });
    await expect(verifier.verifyAccessToken(foreign, server.audience)).rejects.toThrow(
      `issuer https://elsewhere.example does not match expected issuer: ${server.issuer}`,
    );
  });
});
