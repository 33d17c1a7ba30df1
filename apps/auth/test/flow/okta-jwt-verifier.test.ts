/**
 * Okta's own resource-server SDK verifies Gatehouse access tokens with its documented settings:
 * `issuer` (the AUTH_ISSUER), `jwksUri` (<issuer>/oauth2/v1/keys, the "Custom JWKS URI" of its
 * README) and `assertClaims` ('scope.includes'), then verifyAccessToken(token, audience).
 * The only extra here is `testing.disableHttpsCheck`, because this test server is plain http
 * on loopback; a production issuer is https and needs nothing else.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import OktaJwtVerifier from '@okta/jwt-verifier';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { startServer, type TestAuthServer } from '../support/flow.ts';

describe.each(TEST_ENGINES)('@okta/jwt-verifier accepts Gatehouse access tokens on %s', (engine) => {
  let server: TestAuthServer;
  let verifier: OktaJwtVerifier;

  beforeAll(async () => {
    server = await startServer({ engine });
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    verifier = new OktaJwtVerifier({
      issuer: server.issuer,
      jwksUri: `${server.issuer}/oauth2/v1/keys`,
      assertClaims: { 'scope.includes': ['movies:read'] },
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
    expect(jwt.claims).toMatchObject({ iss: server.issuer, aud: server.audience, scope: 'movies:read', client_id: 'test-app' });
    expect(jwt.isExpired()).toBe(false);
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
      "claim 'scope' value 'openid profile' does not include expected value 'movies:read'",
    );
  });

  it('refuses an expired token and a token from another issuer', async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = { sub: 'someone', client_id: 'test-app', aud: server.audience, scope: 'movies:read', jti: 'x1' };
    const expired = await server.sign({ ...base, iss: server.issuer, iat: now - 7200, exp: now - 3600 });
    await expect(verifier.verifyAccessToken(expired, server.audience)).rejects.toThrow('Jwt is expired');
    const foreign = await server.sign({ ...base, iss: 'https://elsewhere.example', iat: now, exp: now + 600 });
    await expect(verifier.verifyAccessToken(foreign, server.audience)).rejects.toThrow(
      `issuer https://elsewhere.example does not match expected issuer: ${server.issuer}`,
    );
  });
});
