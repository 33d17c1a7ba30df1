/**
 * @okta/jwt-verifier (Okta's resource-server SDK) on the real stack's access and ID tokens with its
 * default configuration: `issuer` alone, from which it fetches the keys at `<issuer>/v1/keys` (the
 * path of an Okta authorization server). `testing.disableHttpsCheck` is the one extra, because the
 * stack is plain http on loopback. Its `assertClaims` read Okta's `cid` and `scp` claims. The
 * tokens come from oauth4webapi: a user's code flow (signed in through Chromium) and client_credentials.
 */
import OktaJwtVerifier from '@okta/jwt-verifier';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { createUser } from '../support/users.ts';
import { authorizeInBrowser } from './support/browser-authorization.ts';
import { startCallbackServer, type CallbackServer } from './support/callback-server.ts';
import { addClient, API_AUDIENCE, interopStack, type RegisteredClient } from './support/interop-stack.ts';

const stack = interopStack();
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const SCOPE = 'openid profile email movies:read';

let browser: Browser;
let rp: CallbackServer;
let registered: RegisteredClient;
let service: RegisteredClient;
let userTokens: { accessToken: string; idToken: string; nonce: string; sub: string };

beforeAll(async () => {
  // The verifier warns on every construction that the https check is off; the test knows.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  rp = await startCallbackServer();
  const redirectUri = `${rp.origin}/okta/callback`;
  [registered, service] = await Promise.all([
    addClient(stack, 'okta-web', ['--redirect-uri', redirectUri, '--name', 'Okta-verified app']),
    addClient(stack, 'okta-service', ['--grant', 'client_credentials']),
  ]);
  const user = await createUser(stack, 'okta');
  browser = await launchBrowser();
  const page = await browser.newPage();

  const issuer = new URL(stack.authUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const client: oauth.Client = { client_id: registered.client_id };
  const verifier = oauth.generateRandomCodeVerifier();
  const nonce = oauth.generateRandomNonce();
  const url = new URL(as.authorization_endpoint!);
  for (const [name, value] of Object.entries({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: SCOPE,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  })) {
    url.searchParams.set(name, value);
  }
  const { callback } = await authorizeInBrowser(page, url, redirectUri, user);
  const params = oauth.validateAuthResponse(as, client, callback);
  const auth = oauth.ClientSecretBasic(registered.client_secret!);
  const result = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, insecure),
    { expectedNonce: nonce, requireIdToken: true },
  );
  userTokens = { accessToken: result.access_token, idToken: result.id_token!, nonce, sub: oauth.getValidatedIdTokenClaims(result)!.sub };
});

afterAll(async () => {
  vi.restoreAllMocks();
  await browser?.close();
  await rp?.close();
});

describe('@okta/jwt-verifier 4.0.2, default configuration', () => {
  it('fetches the keys from <issuer>/v1/keys, the JWKS that discovery names', async () => {
    const [alias, jwks] = await Promise.all([fetch(`${stack.authUrl}/v1/keys`), fetch(`${stack.authUrl}/oauth2/v1/keys`)]);
    expect([alias.status, jwks.status]).toEqual([200, 200]);
    expect(await alias.json()).toEqual(await jwks.json());
  });

  it('verifies a user\'s access token, asserting Okta\'s cid and scp claims', async () => {
    const verifier = new OktaJwtVerifier({
      issuer: stack.authUrl,
      assertClaims: { cid: registered.client_id, 'scp.includes': ['movies:read'] },
      testing: { disableHttpsCheck: true },
    });
    const jwt = await verifier.verifyAccessToken(userTokens.accessToken, API_AUDIENCE);
    expect(jwt.header).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(jwt.claims).toMatchObject({
      iss: stack.authUrl,
      aud: API_AUDIENCE,
      sub: userTokens.sub,
      client_id: registered.client_id,
      cid: registered.client_id,
      scope: SCOPE,
      scp: SCOPE.split(' '),
    });
    await expect(verifier.verifyAccessToken(userTokens.accessToken, 'https://other-api.example')).rejects.toThrow(
      `audience claim ${API_AUDIENCE} does not match expected audience: https://other-api.example`,
    );
  });

  it('verifies a client_credentials access token', async () => {
    const issuer = new URL(stack.authUrl);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const client: oauth.Client = { client_id: service.client_id };
    const result = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretBasic(service.client_secret!), { scope: 'movies:read' }, insecure),
    );
    const verifier = new OktaJwtVerifier({ issuer: stack.authUrl, assertClaims: { cid: service.client_id }, testing: { disableHttpsCheck: true } });
    const jwt = await verifier.verifyAccessToken(result.access_token, API_AUDIENCE);
    expect(jwt.claims).toMatchObject({ sub: service.client_id, cid: service.client_id, scp: ['movies:read'] });
  });

  it('verifies the ID token: signature, issuer, audience (the client) and nonce', async () => {
    const verifier = new OktaJwtVerifier({ issuer: stack.authUrl, testing: { disableHttpsCheck: true } });
    const jwt = await verifier.verifyIdToken(userTokens.idToken, registered.client_id, userTokens.nonce);
    expect(jwt.claims).toMatchObject({ iss: stack.authUrl, aud: registered.client_id, sub: userTokens.sub, nonce: userTokens.nonce });
    await expect(verifier.verifyIdToken(userTokens.idToken, 'another-app', userTokens.nonce)).rejects.toThrow(
      `audience claim ${registered.client_id} does not match expected client id: another-app`,
    );
  });
});
