/**
 * oauth4webapi (panva's low-level OAuth 2.0 / OpenID Connect client) against the real stack, one
 * protocol step per call: discovery, code + PKCE for a confidential and a public client, RFC 9207
 * `iss`, refresh rotation, client_credentials, introspection, revocation, PAR, DPoP at the token
 * endpoint, the API and userinfo, a client that requires DPoP, private_key_jwt and
 * client_secret_jwt, RFC 9068 validation of the access token, and consent with offline_access.
 * The user signs in once in Chromium (password, TOTP enrollment); later authorizations ride the
 * SSO session and show only the steps the server asks for. Every client is registered with authctl.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oauth from 'oauth4webapi';
import { exportJWK, calculateJwkThumbprint, decodeJwt, decodeProtectedHeader } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_DEFAULTS } from '@gatehouse/contracts';
import { launchBrowser } from '../support/browser.ts';
import { createUser, type E2eUser } from '../support/users.ts';
import { authorizeInBrowser, type AuthorizationStep } from './support/browser-authorization.ts';
import { startCallbackServer, type CallbackServer } from './support/callback-server.ts';
import { addClient, API_AUDIENCE, interopStack, type RegisteredClient } from './support/interop-stack.ts';

const stack = interopStack();
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const SCOPE = 'openid profile email movies:read';

let as: oauth.AuthorizationServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let rp: CallbackServer;
let redirectUri: string;
let web: RegisteredClient;
let spa: RegisteredClient;
let service: RegisteredClient;
let other: RegisteredClient;
/** Clients of their own for the tests that end a grant (refresh-token reuse, revocation): every
 * authorization of one client and user shares one grant, and ending it ends all of its tokens. */
let rotating: RegisteredClient;
let revoking: RegisteredClient;

const webClient = (): oauth.Client => ({ client_id: web.client_id });
const webAuth = (): oauth.ClientAuth => oauth.ClientSecretBasic(web.client_secret!);
const basic = (registered: RegisteredClient): [oauth.Client, oauth.ClientAuth] => [
  { client_id: registered.client_id },
  oauth.ClientSecretBasic(registered.client_secret!),
];

beforeAll(async () => {
  const issuer = new URL(stack.authUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  rp = await startCallbackServer();
  redirectUri = `${rp.origin}/oauth4webapi/callback`;
  [web, spa, service, other, rotating, revoking] = await Promise.all([
    addClient(stack, 'o4w-web', ['--redirect-uri', redirectUri, '--name', 'oauth4webapi web app']),
    addClient(stack, 'o4w-spa', ['--public', '--redirect-uri', redirectUri, '--name', 'oauth4webapi SPA']),
    addClient(stack, 'o4w-service', ['--grant', 'client_credentials', '--name', 'oauth4webapi service']),
    addClient(stack, 'o4w-other', ['--grant', 'client_credentials', '--name', 'another confidential client']),
    addClient(stack, 'o4w-rotating', ['--redirect-uri', redirectUri]),
    addClient(stack, 'o4w-revoking', ['--redirect-uri', redirectUri]),
  ]);
  user = await createUser(stack, 'o4w');
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await rp?.close();
});

interface CodeFlow {
  steps: AuthorizationStep[];
  callback: URL;
  result: oauth.TokenEndpointResponse;
  idToken: oauth.IDToken;
}

/** An authorization code flow with PKCE, state and nonce; the user's part in Chromium. */
async function codeFlow(
  client: oauth.Client,
  clientAuth: oauth.ClientAuth,
  options: { scope?: string; extra?: Record<string, string>; DPoP?: oauth.DPoPHandle; par?: boolean } = {},
): Promise<CodeFlow> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const parameters: Record<string, string> = {
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: options.scope ?? SCOPE,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...options.extra,
  };
  const url = new URL(as.authorization_endpoint!);
  if (options.par) {
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      client,
      await oauth.pushedAuthorizationRequest(as, client, clientAuth, parameters, insecure),
    );
    expect(pushed.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(pushed.expires_in).toBeGreaterThan(0);
    url.searchParams.set('client_id', client.client_id);
    url.searchParams.set('request_uri', pushed.request_uri);
  } else {
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  }
  const { callback, steps } = await authorizeInBrowser(page, url, redirectUri, user);
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, {
    ...insecure,
    ...(options.DPoP ? { DPoP: options.DPoP } : {}),
  });
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: nonce, requireIdToken: true });
  return { steps, callback, result, idToken: oauth.getValidatedIdTokenClaims(result)! };
}

/** GET on the API's movies collection, with a Bearer token or a DPoP-bound one and its proof. */
async function readMovies(accessToken: string, DPoP?: oauth.DPoPHandle): Promise<Response> {
  try {
    return await oauth.protectedResourceRequest(accessToken, 'GET', new URL(`${stack.apiUrl}/api/movies`), new Headers({ accept: 'application/json' }), null, {
      ...insecure,
      ...(DPoP ? { DPoP } : {}),
    });
  } catch (error) {
    // oauth4webapi throws on a 401 with a challenge; the test looks at the answer itself.
    if (error instanceof oauth.WWWAuthenticateChallengeError) return error.response;
    throw error;
  }
}

describe('oauth4webapi 3.8.8', () => {
  it('discovery: the issuer, the endpoints, RFC 9207 iss, and only response types, grants and client auth methods this suite uses', () => {
    expect(as.issuer).toBe(stack.authUrl);
    expect(as.authorization_endpoint).toBe(`${stack.authUrl}/oauth2/v1/authorize`);
    expect(as.token_endpoint).toBe(`${stack.authUrl}/oauth2/v1/token`);
    expect(as.jwks_uri).toBe(`${stack.authUrl}/oauth2/v1/keys`);
    expect(as.userinfo_endpoint).toBe(`${stack.authUrl}/oauth2/v1/userinfo`);
    expect(as.pushed_authorization_request_endpoint).toBe(`${stack.authUrl}/request`);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
    // Each of these works for a client registered for it: code here, id_token (the implicit grant
    // without an access token) in express-openid-connect.test.ts, client_secret_post in
    // openid-client.test.ts, the device grant in tests/device-authorization.test.ts (oauth4webapi
    // too), token exchange in apps/auth's token-exchange test (openid-client), every other value in this file.
    expect(as.response_types_supported).toEqual(['code', 'id_token']);
    expect(as.device_authorization_endpoint).toBe(`${stack.authUrl}/oauth2/v1/device/authorize`);
    expect(as.grant_types_supported).toEqual([
      'authorization_code',
      'implicit',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]);
    expect(as.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
  });

  let first: CodeFlow;

  it('code + PKCE, confidential client (client_secret_basic): sign-in, consent, ID token, API token, RFC 9207 iss', async () => {
    first = await codeFlow(webClient(), webAuth());
    // A client registered by authctl is not first-party: the user is asked once for these scopes.
    expect(first.steps).toEqual(['login', 'mfa', 'consent']);
    expect(first.callback.searchParams.get('iss')).toBe(stack.authUrl);
    expect(first.result.token_type).toBe('bearer');
    expect(first.result.scope).toBe(SCOPE);
    expect(first.idToken).toEqual({
      iss: stack.authUrl,
      aud: web.client_id,
      sub: expect.any(String),
      iat: expect.any(Number),
      exp: expect.any(Number),
      // processAuthorizationCodeResponse compared it with the one sent.
      nonce: expect.any(String),
      amr: ['pwd', 'otp'],
      acr: 'urn:gatehouse:loa:mfa',
      name: user.name,
      preferred_username: user.username,
      email: user.email,
      email_verified: true,
      groups: user.groups,
    });
    expect((await readMovies(first.result.access_token)).status).toBe(200);
  });

  it('RFC 9207: a callback whose iss is another issuer, or is missing, is refused by validateAuthResponse', () => {
    const forged = new URL(first.callback);
    forged.searchParams.set('iss', 'https://attacker.example');
    expect(() => oauth.validateAuthResponse(as, webClient(), forged, oauth.skipStateCheck)).toThrow(
      expect.objectContaining({ code: oauth.INVALID_RESPONSE, message: 'unexpected "iss" (issuer) response parameter value' }),
    );
    const missing = new URL(first.callback);
    missing.searchParams.delete('iss');
    expect(() => oauth.validateAuthResponse(as, webClient(), missing, oauth.skipStateCheck)).toThrow(
      expect.objectContaining({ code: oauth.INVALID_RESPONSE, message: 'response parameter "iss" (issuer) missing' }),
    );
  });

  it('RFC 9068: validateJwtAccessToken accepts the API token as the API would receive it, with the exact claims', async () => {
    const request = new Request(`${stack.apiUrl}/api/movies`, { headers: { authorization: `Bearer ${first.result.access_token}` } });
    const claims = await oauth.validateJwtAccessToken(as, request, API_AUDIENCE, insecure);
    expect(decodeProtectedHeader(first.result.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
    expect(claims).toEqual({
      iss: stack.authUrl,
      aud: API_AUDIENCE,
      sub: first.idToken.sub,
      client_id: web.client_id,
      scope: SCOPE,
      // Okta's names for client_id and scope, for code written against Okta (oidc/okta-claims.ts).
      cid: web.client_id,
      scp: SCOPE.split(' '),
      jti: expect.any(String),
      iat: expect.any(Number),
      exp: expect.any(Number),
      grant_id: expect.any(String),
      groups: user.groups,
    });
    // The API itself refuses a token for another audience: validateJwtAccessToken does too.
    await expect(oauth.validateJwtAccessToken(as, request, 'https://another-api.example', insecure)).rejects.toMatchObject({
      code: oauth.JWT_CLAIM_COMPARISON,
    });
  });

  it('userinfo accepts the access token that also carries the API scope', async () => {
    const response = await oauth.userInfoRequest(as, webClient(), first.result.access_token, insecure);
    const claims = await oauth.processUserInfoResponse(as, webClient(), first.idToken.sub, response);
    expect(claims).toEqual({
      sub: first.idToken.sub,
      name: user.name,
      preferred_username: user.username,
      email: user.email,
      email_verified: true,
      groups: user.groups,
    });
  });

  it('code + PKCE, public client (none): no secret, a token for the API, and a second sign-in rides the SSO session', async () => {
    const flow = await codeFlow({ client_id: spa.client_id, token_endpoint_auth_method: 'none' }, oauth.None());
    expect(flow.steps).toEqual(['consent']);
    expect(flow.idToken.aud).toBe(spa.client_id);
    expect(flow.idToken.sub).toBe(first.idToken.sub);
    const claims = decodeJwt(flow.result.access_token);
    expect([claims.aud, claims.client_id, claims.scope]).toEqual([API_AUDIENCE, spa.client_id, SCOPE]);
    expect((await readMovies(flow.result.access_token)).status).toBe(200);
  });

  it('consent with offline_access: the page is shown (prompt=consent), Allow gives a refresh token; Deny answers access_denied', async () => {
    const flow = await codeFlow(webClient(), webAuth(), { scope: `${SCOPE} offline_access`, extra: { prompt: 'consent' } });
    expect(flow.steps).toEqual(['consent']);
    expect(flow.result.refresh_token).toEqual(expect.any(String));
    expect(flow.result.scope).toBe(`${SCOPE} offline_access`);

    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [name, value] of Object.entries({
      client_id: web.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: `${SCOPE} offline_access`,
      prompt: 'consent',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
      state,
    })) {
      url.searchParams.set(name, value);
    }
    const denied = await authorizeInBrowser(page, url, redirectUri, user, 'deny');
    expect(denied.steps).toEqual(['consent']);
    expect(() => oauth.validateAuthResponse(as, webClient(), denied.callback, state)).toThrow(
      expect.objectContaining({ code: oauth.AUTHORIZATION_RESPONSE_ERROR, error: 'access_denied' }),
    );
    expect(denied.callback.searchParams.get('iss')).toBe(stack.authUrl);
  });

  it('a client registered --first-party skips the consent page, unless it sends prompt=consent', async () => {
    const [client, auth] = basic(await addClient(stack, 'o4w-first-party', ['--redirect-uri', redirectUri, '--first-party']));
    expect((await codeFlow(client, auth)).steps).toEqual([]);
    const asked = await codeFlow(client, auth, { extra: { prompt: 'consent' } });
    expect(asked.steps).toEqual(['consent']);
    expect(asked.result.scope).toBe(SCOPE);
  });

  it('refresh: a rotated refresh token and a new access token; the used one is refused (invalid_grant) and ends the grant', async () => {
    const [client, auth] = basic(rotating);
    const flow = await codeFlow(client, auth, { scope: `${SCOPE} offline_access` });
    expect(flow.steps).toEqual(['consent']);
    // offline_access without prompt=consent: asked on the consent page and granted, as at Okta and Auth0.
    expect(flow.result.scope).toBe(`${SCOPE} offline_access`);
    const refreshToken = flow.result.refresh_token!;
    const refresh = async (token: string) =>
      oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, token, insecure));
    const refreshed = await refresh(refreshToken);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(refreshToken);
    expect(refreshed.access_token).not.toBe(flow.result.access_token);
    expect(refreshed.scope).toBe(`${SCOPE} offline_access`);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ aud: API_AUDIENCE, client_id: rotating.client_id, sub: flow.idToken.sub });
    expect((await readMovies(refreshed.access_token)).status).toBe(200);

    // Reuse of the rotated-out token: refused, and the grant ends (the new refresh token too).
    await expect(refresh(refreshToken)).rejects.toMatchObject({ code: oauth.RESPONSE_BODY_ERROR, error: 'invalid_grant', status: 400 });
    await expect(refresh(refreshed.refresh_token!)).rejects.toMatchObject({ code: oauth.RESPONSE_BODY_ERROR, error: 'invalid_grant', status: 400 });
  });

  it('client_credentials: with a scope and without one, an RFC 9068 JWT for the API that the API accepts', async () => {
    const client: oauth.Client = { client_id: service.client_id };
    const auth = oauth.ClientSecretBasic(service.client_secret!);
    for (const scope of ['movies:read', undefined]) {
      const parameters: Record<string, string> = scope ? { scope } : {};
      const result = await oauth.processClientCredentialsResponse(
        as,
        client,
        await oauth.clientCredentialsGrantRequest(as, client, auth, parameters, insecure),
      );
      expect(result.token_type).toBe('bearer');
      expect(decodeProtectedHeader(result.access_token)).toMatchObject({ typ: 'at+jwt', alg: 'RS256' });
      const request = new Request(`${stack.apiUrl}/api/movies`, { headers: { authorization: `Bearer ${result.access_token}` } });
      const claims = await oauth.validateJwtAccessToken(as, request, API_AUDIENCE, insecure);
      expect(claims).toMatchObject({ iss: stack.authUrl, aud: API_AUDIENCE, sub: service.client_id, client_id: service.client_id });
      if (scope) expect(claims.scope).toBe(scope);
      expect((await readMovies(result.access_token)).status).toBe(200);
    }
  });

  it('introspection: the token\'s own client and the API\'s resource-server client see it; another client gets active: false', async () => {
    const token = first.result.access_token;
    const introspect = async (client: oauth.Client, auth: oauth.ClientAuth) =>
      oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, token, insecure));
    const expected = {
      active: true,
      iss: stack.authUrl,
      aud: API_AUDIENCE,
      sub: first.idToken.sub,
      client_id: web.client_id,
      scope: SCOPE,
      token_type: 'Bearer',
      jti: expect.any(String),
      iat: expect.any(Number),
      exp: expect.any(Number),
      username: user.username,
      groups: user.groups,
    };
    expect(await introspect(webClient(), webAuth())).toEqual(expected);
    expect(await introspect({ client_id: 'api' }, oauth.ClientSecretBasic(DEV_DEFAULTS.clientSecrets.api))).toEqual(expected);
    expect(await introspect({ client_id: other.client_id }, oauth.ClientSecretBasic(other.client_secret!))).toEqual({ active: false });
  });

  it('revocation: a revoked access token is inactive and refused by the API; a revoked refresh token no longer refreshes', async () => {
    const [client, auth] = basic(revoking);
    const flow = await codeFlow(client, auth, { scope: `${SCOPE} offline_access` });
    const revoke = async (token: string, hint: string) =>
      oauth.processRevocationResponse(await oauth.revocationRequest(as, client, auth, token, { ...insecure, additionalParameters: { token_type_hint: hint } }));
    const accessToken = flow.result.access_token;
    expect((await readMovies(accessToken)).status).toBe(200);
    await expect(revoke(accessToken, 'access_token')).resolves.toBeUndefined();
    const introspection = await oauth.processIntrospectionResponse(as, client, await oauth.introspectionRequest(as, client, auth, accessToken, insecure));
    expect(introspection).toEqual({ active: false });
    // The API learns of it through the revocation feed, within about 2 s.
    const deadline = Date.now() + 5_000;
    let refused = await readMovies(accessToken);
    while (refused.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      refused = await readMovies(accessToken);
    }
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="gatehouse-api", error="invalid_token", error_description="the access token has been revoked"');

    await expect(revoke(flow.result.refresh_token!, 'refresh_token')).resolves.toBeUndefined();
    await expect(
      oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, auth, flow.result.refresh_token!, insecure)),
    ).rejects.toMatchObject({ code: oauth.RESPONSE_BODY_ERROR, error: 'invalid_grant', status: 400 });
  });

  it('PAR: the pushed request\'s request_uri at the authorization endpoint gives a code that redeems as usual', async () => {
    const flow = await codeFlow(webClient(), webAuth(), { par: true });
    expect(flow.steps).toEqual([]);
    expect(flow.result.scope).toBe(SCOPE);
    expect(flow.idToken.aud).toBe(web.client_id);
    expect((await readMovies(flow.result.access_token)).status).toBe(200);
  });

  it('DPoP: the token endpoint binds the token (token_type DPoP, cnf.jkt); the API and userinfo take it only with a proof', async () => {
    const keyPair = await oauth.generateKeyPair('ES256');
    const jkt = await calculateJwkThumbprint(await exportJWK(keyPair.publicKey));
    const DPoP = oauth.DPoP(webClient(), keyPair);
    const flow = await codeFlow(webClient(), webAuth(), { DPoP });
    expect(flow.result.token_type).toBe('dpop');
    const token = flow.result.access_token;
    expect(decodeJwt(token).cnf).toEqual({ jkt });

    // The API (JWKS mode) with a proof: 200; the same token as a plain Bearer: refused.
    expect((await readMovies(token, DPoP)).status).toBe(200);
    const asBearer = await fetch(`${stack.apiUrl}/api/movies`, { headers: { authorization: `Bearer ${token}` } });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toBe(
      'DPoP realm="gatehouse-api", error="invalid_token", error_description="the access token is bound to a DPoP key; send it as DPoP with a DPoP proof", algs="ES256 PS256 RS256 Ed25519 EdDSA"',
    );

    // userinfo with a proof: the claims; as a Bearer: invalid_token.
    const userinfo = await oauth.processUserInfoResponse(as, webClient(), flow.idToken.sub, await oauth.userInfoRequest(as, webClient(), token, { ...insecure, DPoP }));
    expect(userinfo).toMatchObject({ sub: flow.idToken.sub, email: user.email });
    const userinfoAsBearer = await fetch(as.userinfo_endpoint!, { headers: { authorization: `Bearer ${token}` } });
    const bound = 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof';
    expect([userinfoAsBearer.status, userinfoAsBearer.headers.get('www-authenticate'), await userinfoAsBearer.json()]).toEqual([
      401,
      `DPoP realm="${stack.authUrl}", error="invalid_token", error_description="${bound}", algs="ES256 PS256 RS256 Ed25519 EdDSA"`,
      { error: 'invalid_token', error_description: bound },
    ]);

    // Introspection tells the resource server how the token is bound.
    const introspection = await oauth.processIntrospectionResponse(as, webClient(), await oauth.introspectionRequest(as, webClient(), webAuth(), token, insecure));
    expect(introspection).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt } });
  });

  it('private_key_jwt and client_secret_jwt: the registered method is the only one accepted', async () => {
    const { privateKey, publicKey } = await oauth.generateKeyPair('ES256');
    const jwksFile = join(stack.dataDir, 'o4w-pkjwt.jwks.json');
    writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'o4w-key-1', alg: 'ES256', use: 'sig' }] }));
    const pkjwt = await addClient(stack, 'o4w-pkjwt', ['--grant', 'client_credentials', '--auth-method', 'private_key_jwt', '--jwks', jwksFile]);
    expect(pkjwt.client_secret).toBeUndefined();
    const client: oauth.Client = { client_id: pkjwt.client_id };
    const result = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, oauth.PrivateKeyJwt({ key: privateKey, kid: 'o4w-key-1' }), { scope: 'movies:read' }, insecure),
    );
    expect(decodeJwt(result.access_token)).toMatchObject({ client_id: pkjwt.client_id, aud: API_AUDIENCE, scope: 'movies:read' });

    const csjwt = await addClient(stack, 'o4w-csjwt', ['--grant', 'client_credentials', '--auth-method', 'client_secret_jwt']);
    const csClient: oauth.Client = { client_id: csjwt.client_id };
    const csResult = await oauth.processClientCredentialsResponse(
      as,
      csClient,
      await oauth.clientCredentialsGrantRequest(as, csClient, oauth.ClientSecretJwt(csjwt.client_secret!), { scope: 'movies:read' }, insecure),
    );
    expect(decodeJwt(csResult.access_token)).toMatchObject({ client_id: csjwt.client_id });
    // The same secret in the body or as Basic is not the registered method: invalid_client.
    const refused = async (auth: oauth.ClientAuth) => {
      const response = await oauth.clientCredentialsGrantRequest(as, csClient, auth, {}, insecure);
      return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() };
    };
    const invalidClient = { error: 'invalid_client', error_description: 'client authentication failed' };
    expect(await refused(oauth.ClientSecretPost(csjwt.client_secret!))).toEqual({ status: 401, challenge: null, body: invalidClient });
    expect(await refused(oauth.ClientSecretBasic(csjwt.client_secret!))).toEqual({
      status: 401,
      challenge: `Basic realm="${stack.authUrl}", error="invalid_client", error_description="client authentication failed"`,
      body: invalidClient,
    });
  });

  it('a client registered with --require-dpop gets no token without a proof, and a DPoP token with one', async () => {
    const bound = await addClient(stack, 'o4w-dpop-only', ['--grant', 'client_credentials', '--require-dpop']);
    const client: oauth.Client = { client_id: bound.client_id };
    const auth = oauth.ClientSecretBasic(bound.client_secret!);
    await expect(
      oauth.processClientCredentialsResponse(as, client, await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'movies:read' }, insecure)),
    ).rejects.toMatchObject({
      code: oauth.RESPONSE_BODY_ERROR,
      status: 400,
      error: 'invalid_dpop_proof',
      error_description: 'this client is registered to require DPoP: send a DPoP proof in the DPoP header',
    });
    const DPoP = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const result = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, { scope: 'movies:read' }, { ...insecure, DPoP }),
    );
    expect(result.token_type).toBe('dpop');
    expect((await readMovies(result.access_token, DPoP)).status).toBe(200);
  });
});
