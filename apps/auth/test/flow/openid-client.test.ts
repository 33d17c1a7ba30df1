import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { IdTokenClaims } from '@gatehouse/contracts';
import { CookieJar, decodeJwt, form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';

// An independent, certified relying-party library completes code + PKCE against the running
// server; only the user's part (/login, /mfa/verify) is driven by hand over HTTP.
describe('openid-client as the relying party', () => {
  let server: TestAuthServer;
  const publicClient = { clientId: 'spa-public', redirectUri: 'http://127.0.0.1:8/cb' };

  beforeAll(async () => {
    server = await startServer();
    await server.app.services.clients.create({
      clientId: publicClient.clientId,
      name: 'Public SPA',
      redirectUris: [publicClient.redirectUri],
      public: true,
      // An operator's own app: no consent page (flow/consent.test.ts covers it).
      firstParty: true,
      grantTypes: ['authorization_code', 'refresh_token'],
    });
  });
  afterAll(() => server.close());

  async function drive(authorizationUrl: URL, user: { username: string; password: string; totpSecret: string }): Promise<URL> {
    const jar = new CookieJar();
    const page = await request(jar, authorizationUrl.toString());
    expect(page.status).toBe(200);
    const uid = uidOf(page.text);
    const mfa = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    expect(mfa.status).toBe(200);
    const code = await server.app.services.totp.generate(user.totpSecret, Date.now());
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(done.status).toBe(302);
    return new URL(done.location!);
  }

  it('a confidential client completes code + PKCE and validates the ID token', async () => {
    // The client is registered for client_secret_basic, the one method it may use; openid-client's default is client_secret_post.
    const config = await client.discovery(new URL(server.issuer), server.testClient.clientId, server.testClient.clientSecret, client.ClientSecretBasic(server.testClient.clientSecret), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: server.testClient.redirectUri,
      scope: 'openid profile email movies:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const user = await server.createUser({ groups: ['rp'] });
    const callback = await drive(url, user);
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    const claims = IdTokenClaims.parse(tokens.claims());
    expect(claims).toMatchObject({ iss: server.issuer, aud: server.testClient.clientId, nonce, groups: ['rp'], amr: ['pwd', 'otp'], email: `${user.username}@example.com` });

    // One sign-in gives both: the access token is the API's, and userinfo takes it for its openid scope.
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: server.audience, scope: 'openid profile email movies:read' });
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(userinfo).toEqual({
      sub: claims.sub,
      name: `Test ${user.username}`,
      preferred_username: user.username,
      groups: ['rp'],
      email: `${user.username}@example.com`,
      email_verified: true,
    });

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('a public client must use PKCE, and completes with it', async () => {
    const config = await client.discovery(new URL(server.issuer), publicClient.clientId, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const user = await server.createUser();
    const withoutPkce = client.buildAuthorizationUrl(config, { redirect_uri: publicClient.redirectUri, scope: 'openid', state: 'nopkce' });
    const refused = await request(new CookieJar(), withoutPkce.toString());
    expect(refused.status).toBe(302);
    const error = new URL(refused.location!);
    expect(error.searchParams.get('error')).toBe('invalid_request');
    expect(error.searchParams.get('error_description')).toBe('Authorization Server policy requires PKCE to be used for this request');

    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: publicClient.redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'pkce-state',
    });
    const callback = await drive(url, user);
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: 'pkce-state' });
    expect(tokens.claims()?.sub).toBeTruthy();
    expect(tokens.claims()?.email).toBe(`${user.username}@example.com`);
  });
});
