/**
 * openid-client v6 (the certified relying-party library) against the real stack with its
 * defaults, apart from `allowInsecureRequests` (the stack is plain http on loopback): discovery,
 * the code flow with PKCE asking for `offline_access` without `prompt=consent` (as Okta and Auth0
 * clients do: the consent page asks for it), userinfo with an access token that also carries an
 * API scope, the API with that same token, and refresh after the SSO session ended. The client is registered for `client_secret_post`,
 * the method openid-client uses when given a secret; the one registered method is the only one
 * the server accepts, so a client registered for `client_secret_basic` is refused.
 */
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { createUser, type E2eUser } from '../support/users.ts';
import { authorizeInBrowser } from './support/browser-authorization.ts';
import { startCallbackServer, type CallbackServer } from './support/callback-server.ts';
import { addClient, API_AUDIENCE, interopStack, type RegisteredClient } from './support/interop-stack.ts';

const stack = interopStack();
const SCOPE = 'openid profile email movies:read offline_access';

let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let rp: CallbackServer;
let redirectUri: string;
let registered: RegisteredClient;
let config: client.Configuration;

beforeAll(async () => {
  rp = await startCallbackServer();
  redirectUri = `${rp.origin}/openid-client/callback`;
  registered = await addClient(stack, 'oc-web', ['--redirect-uri', redirectUri, '--auth-method', 'client_secret_post', '--name', 'openid-client app']);
  config = await client.discovery(new URL(stack.authUrl), registered.client_id, registered.client_secret!, undefined, {
    execute: [client.allowInsecureRequests],
  });
  user = await createUser(stack, 'oc');
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await rp?.close();
});

async function signIn(configuration: client.Configuration) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const { callback, steps } = await authorizeInBrowser(page, url, redirectUri, user);
  const tokens = await client.authorizationCodeGrant(configuration, callback, { pkceCodeVerifier: verifier, expectedState: state });
  return { tokens, steps };
}

describe('openid-client 6.8.9', () => {
  let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
  let sub: string;

  it('code flow with PKCE: the ID token\'s claims, an access token for the API and a refresh token', async () => {
    const signedIn = await signIn(config);
    tokens = signedIn.tokens;
    expect(signedIn.steps).toEqual(['login', 'mfa', 'consent']);
    const claims = tokens.claims()!;
    sub = claims.sub;
    expect(claims).toEqual({
      iss: stack.authUrl,
      aud: registered.client_id,
      sub: expect.any(String),
      iat: expect.any(Number),
      exp: expect.any(Number),
      amr: ['pwd', 'otp'],
      acr: 'urn:gatehouse:loa:mfa',
      name: user.name,
      preferred_username: user.username,
      email: user.email,
      email_verified: true,
      groups: user.groups,
    });
    expect(tokens.token_type).toBe('bearer');
    // offline_access without prompt=consent: asked on the consent page and granted, not dropped.
    expect(tokens.scope).toBe(SCOPE);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: API_AUDIENCE, client_id: registered.client_id, sub });
  });

  it('userinfo with the access token that carries movies:read; the API accepts the same token', async () => {
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(userinfo).toEqual({
      sub,
      name: user.name,
      preferred_username: user.username,
      email: user.email,
      email_verified: true,
      groups: user.groups,
    });
    const api = await client.fetchProtectedResource(config, tokens.access_token, new URL(`${stack.apiUrl}/api/movies`), 'GET');
    expect(api.status).toBe(200);
  });

  it('refresh after the SSO session ended (offline_access): new tokens with a new refresh token; userinfo with the new access token', async () => {
    // RP-initiated logout with the ID token as hint: the SSO session ends (prompt=none then
    // answers login_required), the offline grant does not.
    await page.goto(client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token! }).href);
    await page.locator('h1', { hasText: 'Signed out' }).waitFor();
    const silent = client.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: SCOPE, prompt: 'none', state: client.randomState() });
    await page.goto(silent.href);
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ aud: API_AUDIENCE, client_id: registered.client_id, sub });
    expect(await client.fetchUserInfo(config, refreshed.access_token, sub)).toMatchObject({ sub, email: user.email });
  });

  it('openid-client\'s default client_secret_post is refused for a client registered for client_secret_basic (invalid_client)', async () => {
    const basic = await addClient(stack, 'oc-basic', ['--grant', 'client_credentials']);
    const basicConfig = await client.discovery(new URL(stack.authUrl), basic.client_id, basic.client_secret!, undefined, {
      execute: [client.allowInsecureRequests],
    });
    await expect(client.clientCredentialsGrant(basicConfig, { scope: 'movies:read' })).rejects.toMatchObject({
      name: 'ResponseBodyError',
      error: 'invalid_client',
      status: 401,
    });
    // Given the registered method, the same client gets its token.
    const configured = await client.discovery(new URL(stack.authUrl), basic.client_id, undefined, client.ClientSecretBasic(basic.client_secret!), {
      execute: [client.allowInsecureRequests],
    });
    const machine = await client.clientCredentialsGrant(configured, { scope: 'movies:read' });
    expect(decodeJwt(machine.access_token)).toMatchObject({ aud: API_AUDIENCE, client_id: basic.client_id, scope: 'movies:read' });
  });
});
