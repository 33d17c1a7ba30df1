/**
 * Discovery says only what is true: every response type, response mode, grant type
 * and client authentication method it lists works for a client registered for it, over real
 * HTTP, and so does every auth method and signing algorithm it lists for the token,
 * introspection and revocation endpoints, at each of them; what it leaves out (implicit access tokens, hybrid responses) is refused. The
 * `id_token` response type with `form_post` is driven the way express-openid-connect's minimal
 * configuration sends it (response_type=id_token, response_mode=form_post, a nonce).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import type { NewClient } from '../../src/clients/client-store.ts';
import { basic, CookieJar, form, pkcePair, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>/;

/** The client authentication metadata of the endpoints that authenticate clients (RFC 8414 §2). */
type EndpointAuthMetadata = {
  [K in `${'token' | 'introspection' | 'revocation'}_endpoint_auth_${'methods' | 'signing_alg_values'}_supported`]: string[];
};

interface Discovery extends EndpointAuthMetadata {
  response_types_supported: string[];
  response_modes_supported: string[];
  grant_types_supported: string[];
}

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** How a registered client authenticates at an endpoint: headers and form parameters, a fresh assertion each time. */
type Authenticate = (endpointUrl: string) => Promise<{ headers: Record<string, string>; params: Record<string, string> }>;

/** The hidden fields of the form_post page (views/form-post-page.ts). */
function formFields(html: string): Record<string, string> {
  const unescape = (v: string) => v.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, unescape(m[2]!)]));
}

describe.each(TEST_ENGINES)('discovery lists only what works, on %s', (engine) => {
  let server: TestAuthServer;
  let discovery: Discovery;
  let n = 0;

  beforeAll(async () => {
    server = await startServer({ engine });
    discovery = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as Discovery;
  });
  afterAll(() => server.close());

  /**
   * Registers a first-party client (no consent page) with these settings; returns its id, secret
   * and redirect URI. An https redirect URI: an id_token client on http loopback is a native
   * client, which oidc-provider always asks the user's consent for (RFC 8252 §8.6).
   */
  async function register(settings: Partial<NewClient>) {
    const clientId = `honest-${++n}`;
    const redirectUri = `https://rp.example/cb${n}`;
    const created = await server.app.services.clients.create({ clientId, name: `Honest ${n}`, redirectUris: [redirectUri], firstParty: true, ...settings });
    return { clientId, clientSecret: created.clientSecret, redirectUri };
  }

  /** A new user signs in (a TOTP step is accepted once per account, so one user per sign-in). */
  async function freshSignIn(url: string, jar = new CookieJar()) {
    return signIn(server, jar, await server.createUser({ groups: ['readers'] }), url);
  }

  function authorize(client: { clientId: string; redirectUri: string }, params: Record<string, string>): string {
    const url = new URL('/oauth2/v1/authorize', server.issuer);
    url.search = new URLSearchParams({ client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid profile email', state: 'st', nonce: 'nn', ...params }).toString();
    return url.toString();
  }

  async function token(params: Record<string, string>, headers: Record<string, string> = {}) {
    const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(params),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('every claim it lists comes in an ID token (no sid: front- and back-channel logout are not offered)', async () => {
    const doc = (await (await fetch(`${server.issuer}/.well-known/openid-configuration`)).json()) as { claims_supported: string[]; acr_values_supported: string[] };
    // The one acr a sign-in ends with (every way in passes two factors), carried by the ID token.
    expect(doc.acr_values_supported).toEqual(['urn:gatehouse:loa:mfa']);
    expect([...doc.claims_supported].sort()).toEqual(['acr', 'amr', 'auth_time', 'email', 'email_verified', 'groups', 'iss', 'name', 'preferred_username', 'sub']);
    const client = await register({ responseTypes: ['id_token'] });
    const done = await freshSignIn(authorize(client, { response_type: 'id_token', scope: 'openid profile email groups', max_age: '600' }));
    const idToken = new URLSearchParams(new URL(done.location!).hash.slice(1)).get('id_token')!;
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`)), { issuer: server.issuer, audience: client.clientId });
    for (const claim of doc.claims_supported) expect(payload[claim], claim).toBeDefined();
    expect(payload.acr).toBe('urn:gatehouse:loa:mfa');
  });

  it('lists the response types, modes, grant types and auth methods this server has', () => {
    expect(discovery.response_types_supported).toEqual(['code', 'id_token']);
    expect([...discovery.response_modes_supported].sort()).toEqual(['form_post', 'fragment', 'query']);
    // implicit: the grant of the id_token response type (OIDC Core 3.2); it issues no access token.
    expect([...discovery.grant_types_supported].sort()).toEqual(['authorization_code', 'client_credentials', 'implicit', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code', 'urn:ietf:params:oauth:grant-type:token-exchange']);
  });

  it('every response type works for a client registered for it', async () => {
    for (const responseType of discovery.response_types_supported) {
      const client = await register(responseType === 'code' ? { clientSecret: randomBytes(16).toString('hex') } : { responseTypes: [responseType] });
      const done = await freshSignIn(authorize(client, { response_type: responseType }));
      expect(done.status, responseType).toBe(302);
      const answer = new URL(done.location!);
      if (responseType === 'code') expect(answer.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
      else if (responseType === 'id_token') expect(new URLSearchParams(answer.hash.slice(1)).get('id_token')).toMatch(/^ey/);
      else expect.unreachable(`discovery lists ${responseType}, which this test cannot check`);
    }
  });

  it('every response mode delivers the answer its way', async () => {
    const client = await register({});
    const jar = new CookieJar();
    await freshSignIn(authorize(client, { response_type: 'code' }), jar);
    for (const mode of discovery.response_modes_supported) {
      const answer = await request(jar, authorize(client, { response_type: 'code', response_mode: mode }));
      if (mode === 'query') expect(new URL(answer.location!).searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
      else if (mode === 'fragment') expect(new URLSearchParams(new URL(answer.location!).hash.slice(1)).get('code')).toMatch(/^[\w-]{20,}$/);
      else if (mode === 'form_post') {
        expect(answer.status).toBe(200);
        expect(formFields(answer.text)).toMatchObject({ code: expect.stringMatching(/^[\w-]{20,}$/), state: 'st', iss: server.issuer });
      } else expect.unreachable(`discovery lists ${mode}, which this test cannot check`);
    }
  });

  it('every grant type works for a client registered for it', async () => {
    for (const grant of discovery.grant_types_supported) {
      if (grant === 'authorization_code' || grant === 'refresh_token') {
        const client = await register({ clientSecret: randomBytes(16).toString('hex'), grantTypes: ['authorization_code', 'refresh_token'] });
        const { verifier, challenge } = pkcePair();
        const done = await freshSignIn(authorize(client, { response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' }));
        const auth = { authorization: basic(client.clientId, client.clientSecret!) };
        const code = await token({ grant_type: 'authorization_code', code: new URL(done.location!).searchParams.get('code')!, redirect_uri: client.redirectUri, code_verifier: verifier }, auth);
        expect(code.status, grant).toBe(200);
        const refreshed = await token({ grant_type: 'refresh_token', refresh_token: String(code.body.refresh_token) }, auth);
        expect(refreshed.status, grant).toBe(200);
      } else if (grant === 'client_credentials') {
        const client = await register({ clientSecret: randomBytes(16).toString('hex'), grantTypes: ['client_credentials'], redirectUris: [] });
        expect((await token({ grant_type: grant }, { authorization: basic(client.clientId, client.clientSecret!) })).status).toBe(200);
      } else if (grant === 'implicit') {
        const client = await register({ responseTypes: ['id_token'] });
        const done = await freshSignIn(authorize(client, { response_type: 'id_token' }));
        expect(new URLSearchParams(new URL(done.location!).hash.slice(1)).get('id_token')).toMatch(/^ey/);
      } else if (grant === 'urn:ietf:params:oauth:grant-type:token-exchange') {
        const client = await register({ clientSecret: randomBytes(16).toString('hex'), grantTypes: [grant], redirectUris: [], tokenExchange: { audiences: [server.audience], scopes: ['movies:read'] } });
        const subject = await server.login({ scope: 'movies:read' });
        const params = { grant_type: grant, subject_token: subject.access_token, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' };
        expect((await token(params, { authorization: basic(client.clientId, client.clientSecret!) })).status, grant).toBe(200);
      } else if (grant === 'urn:ietf:params:oauth:grant-type:device_code') {
        const client = await register({ public: true, grantTypes: [grant], redirectUris: [] });
        const started = await fetch(`${server.issuer}/oauth2/v1/device/authorize`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ client_id: client.clientId, scope: 'openid' }),
        });
        const device = (await started.json()) as { device_code: string; verification_uri_complete: string };
        // verification_uri_complete posts the code (form-post page); the browser posts it, then approves.
        const jar = new CookieJar();
        const page = await request(jar, device.verification_uri_complete);
        const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)![1]!;
        const confirm = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: field(page.text, 'xsrf'), user_code: field(page.text, 'user_code') }) });
        const login = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: field(confirm.text, 'xsrf'), user_code: field(confirm.text, 'user_code'), confirm: 'yes' }) });
        const user = await server.createUser();
        const uid = field(login.text, 'uid');
        await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
        const code = await server.app.services.totp.generate(user.totpSecret, Date.now());
        expect((await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) })).status, grant).toBe(200);
        expect((await token({ grant_type: grant, device_code: device.device_code, client_id: client.clientId })).status, grant).toBe(200);
      } else expect.unreachable(`discovery lists ${grant}, which this test cannot check`);
    }
  });

  it('every client authentication method works for a client registered for it', async () => {
    const tokenEndpoint = `${server.issuer}/oauth2/v1/token`;
    const assertion = (clientId: string) => new SignJWT({}).setIssuer(clientId).setSubject(clientId).setAudience(tokenEndpoint).setJti(randomBytes(12).toString('hex')).setIssuedAt().setExpirationTime('1m');
    for (const method of discovery.token_endpoint_auth_methods_supported) {
      const machine = { grantTypes: ['client_credentials'], redirectUris: [] };
      if (method === 'client_secret_basic') {
        const c = await register({ ...machine, clientSecret: randomBytes(16).toString('hex') });
        expect((await token({ grant_type: 'client_credentials' }, { authorization: basic(c.clientId, c.clientSecret!) })).status, method).toBe(200);
      } else if (method === 'client_secret_post') {
        const c = await register({ ...machine, clientSecret: randomBytes(16).toString('hex'), authMethod: method });
        expect((await token({ grant_type: 'client_credentials', client_id: c.clientId, client_secret: c.clientSecret! })).status, method).toBe(200);
      } else if (method === 'client_secret_jwt') {
        const c = await register({ ...machine, clientSecret: randomBytes(32).toString('hex'), authMethod: method });
        const jwt = await assertion(c.clientId).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(c.clientSecret!));
        expect((await token({ grant_type: 'client_credentials', client_id: c.clientId, client_assertion_type: JWT_BEARER, client_assertion: jwt })).status, method).toBe(200);
      } else if (method === 'private_key_jwt') {
        const { privateKey, publicKey } = await generateKeyPair('ES256');
        const c = await register({ ...machine, authMethod: method, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] } });
        const jwt = await assertion(c.clientId).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(privateKey);
        expect((await token({ grant_type: 'client_credentials', client_id: c.clientId, client_assertion_type: JWT_BEARER, client_assertion: jwt })).status, method).toBe(200);
      } else if (method === 'none') {
        const c = await register({ public: true });
        const { verifier, challenge } = pkcePair();
        const done = await freshSignIn(authorize(c, { response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' }));
        const code = new URL(done.location!).searchParams.get('code')!;
        expect((await token({ grant_type: 'authorization_code', client_id: c.clientId, code, redirect_uri: c.redirectUri, code_verifier: verifier })).status, method).toBe(200);
      } else expect.unreachable(`discovery lists ${method}, which this test cannot check`);
    }
  });

  it('every auth method and signing algorithm listed for the token, introspection and revocation endpoints works there for a client registered for it', async () => {
    const endpointUrl = { token: `${server.issuer}/oauth2/v1/token`, introspection: `${server.issuer}/oauth2/v1/introspect`, revocation: `${server.issuer}/oauth2/v1/revoke` };
    async function call(endpoint: keyof typeof endpointUrl, authenticate: Authenticate, params: Record<string, string>) {
      const auth = await authenticate(endpointUrl[endpoint]);
      const res = await fetch(endpointUrl[endpoint], {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth.headers },
        body: new URLSearchParams({ ...params, ...auth.params }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : text };
    }
    const assertion = (clientId: string, aud: string) =>
      new SignJWT({}).setIssuer(clientId).setSubject(clientId).setAudience(aud).setJti(randomBytes(12).toString('hex')).setIssuedAt().setExpirationTime('1m');
    const machine = { grantTypes: ['client_credentials'], redirectUris: [] };

    /** Registers a client for `method` (and `alg`, for the JWT methods); returns how it authenticates and a token of its own. */
    async function enroll(method: string, alg: string | undefined): Promise<{ clientId: string; authenticate: Authenticate; issued: string }> {
      let registered: { clientId: string; clientSecret?: string; redirectUri: string };
      let authenticate: Authenticate;
      if (method === 'client_secret_basic') {
        registered = await register({ ...machine, clientSecret: randomBytes(16).toString('hex') });
        authenticate = async () => ({ headers: { authorization: basic(registered.clientId, registered.clientSecret!) }, params: {} });
      } else if (method === 'client_secret_post') {
        registered = await register({ ...machine, clientSecret: randomBytes(16).toString('hex'), authMethod: method });
        authenticate = async () => ({ headers: {}, params: { client_id: registered.clientId, client_secret: registered.clientSecret! } });
      } else if (method === 'client_secret_jwt') {
        registered = await register({ ...machine, clientSecret: randomBytes(32).toString('hex'), authMethod: method });
        const key = new TextEncoder().encode(registered.clientSecret!);
        authenticate = async (aud) => ({
          headers: {},
          params: { client_id: registered.clientId, client_assertion_type: JWT_BEARER, client_assertion: await assertion(registered.clientId, aud).setProtectedHeader({ alg: alg! }).sign(key) },
        });
      } else if (method === 'private_key_jwt') {
        const { privateKey, publicKey } = await generateKeyPair(alg!);
        registered = await register({ ...machine, authMethod: method, jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: alg!, use: 'sig' }] } });
        authenticate = async (aud) => ({
          headers: {},
          params: { client_id: registered.clientId, client_assertion_type: JWT_BEARER, client_assertion: await assertion(registered.clientId, aud).setProtectedHeader({ alg: alg!, kid: 'k1' }).sign(privateKey) },
        });
      } else if (method === 'none') {
        registered = await register({ public: true });
        authenticate = async () => ({ headers: {}, params: { client_id: registered.clientId } });
        const { verifier, challenge } = pkcePair();
        const done = await freshSignIn(authorize(registered, { response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256' }));
        const code = new URL(done.location!).searchParams.get('code')!;
        const issued = await call('token', authenticate, { grant_type: 'authorization_code', code, redirect_uri: registered.redirectUri, code_verifier: verifier });
        expect(issued.status, method).toBe(200);
        return { clientId: registered.clientId, authenticate, issued: String((issued.body as Record<string, unknown>).access_token) };
      } else return expect.unreachable(`discovery lists ${method}, which this test cannot check`);
      const issued = await call('token', authenticate, { grant_type: 'client_credentials' });
      expect(issued.status, `${method} ${alg ?? ''}`).toBe(200);
      return { clientId: registered.clientId, authenticate, issued: String((issued.body as Record<string, unknown>).access_token) };
    }

    for (const endpoint of ['token', 'introspection', 'revocation'] as const) {
      const methods = discovery[`${endpoint}_endpoint_auth_methods_supported`];
      const algs = discovery[`${endpoint}_endpoint_auth_signing_alg_values_supported`];
      expect(methods, endpoint).toEqual(discovery.token_endpoint_auth_methods_supported);
      // Every algorithm belongs to a listed JWT method: HMAC to client_secret_jwt, the others to private_key_jwt.
      for (const alg of algs) expect(methods, `${endpoint} ${alg}`).toContain(alg.startsWith('HS') ? 'client_secret_jwt' : 'private_key_jwt');
      const cases = methods.flatMap((method): { method: string; alg: string | undefined }[] =>
        method === 'client_secret_jwt' ? algs.filter((a) => a.startsWith('HS')).map((alg) => ({ method, alg }))
        : method === 'private_key_jwt' ? algs.filter((a) => !a.startsWith('HS')).map((alg) => ({ method, alg }))
        : [{ method, alg: undefined }],
      );
      for (const { method, alg } of cases) {
        const label = `${endpoint} ${method} ${alg ?? ''}`;
        // enroll() got the client its token at the token endpoint, authenticating by this method and algorithm.
        const client = await enroll(method, alg);
        if (endpoint === 'introspection') {
          expect(await call('introspection', client.authenticate, { token: client.issued }), label).toMatchObject({ status: 200, body: { active: true, client_id: client.clientId } });
        } else if (endpoint === 'revocation') {
          expect(await call('revocation', client.authenticate, { token: client.issued }), label).toEqual({ status: 200, body: '' });
          expect(await call('introspection', client.authenticate, { token: client.issued }), label).toEqual({ status: 200, body: { active: false } });
        }
      }
    }
  });

  it('what discovery leaves out is refused: implicit access tokens, hybrid responses, and id_token for a client not registered for it (invalid_request, as oidc-provider answers)', async () => {
    const both = await register({ responseTypes: ['code', 'id_token'], clientSecret: randomBytes(16).toString('hex') });
    for (const responseType of ['token', 'id_token token', 'code token', 'code id_token', 'code id_token token']) {
      const refused = await request(new CookieJar(), authorize(both, { response_type: responseType }));
      expect(refused.status, responseType).toBe(302);
      const answer = new URL(refused.location!);
      const params = answer.hash ? new URLSearchParams(answer.hash.slice(1)) : answer.searchParams;
      expect(params.get('error'), responseType).toBe('unsupported_response_type');
    }
    const codeOnly = await register({ clientSecret: randomBytes(16).toString('hex') });
    const refused = await request(new CookieJar(), authorize(codeOnly, { response_type: 'id_token' }));
    expect(Object.fromEntries(new URLSearchParams(new URL(refused.location!).hash.slice(1)))).toMatchObject({
      error: 'invalid_request',
      error_description: 'requested response_type is not allowed for this client',
    });
  });

  it("express-openid-connect's minimal configuration signs a user in: id_token by form_post with a nonce, and no inline script", async () => {
    // What the library sends with only issuerBaseURL, baseURL, clientID and secret configured.
    const client = await register({ responseTypes: ['id_token'], clientSecret: randomBytes(16).toString('hex') });
    const nonce = randomBytes(16).toString('base64url');
    const url = authorize(client, { response_type: 'id_token', response_mode: 'form_post', scope: 'openid profile email', nonce, state: 'rp-state' });
    const user = await server.createUser();
    const page = await signIn(server, new CookieJar(), user, url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(CSP.replace("form-action 'self'", "form-action 'self' https://rp.example"));
    expect(page.text).toContain(`<form method="post" action="${client.redirectUri}" id="form-post">`);
    expect(page.text).toContain('<script src="/static/form-post.js" defer></script>');
    expect(page.text).not.toMatch(INLINE_SCRIPT);
    const fields = formFields(page.text);
    expect(Object.keys(fields).sort()).toEqual(['id_token', 'state']);
    expect(fields.state).toBe('rp-state');
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`));
    const { payload } = await jwtVerify(fields.id_token!, jwks, { issuer: server.issuer, audience: client.clientId });
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    expect(payload).toMatchObject({ sub: account.id, nonce, email: `${user.username}@example.com`, preferred_username: user.username });
    expect(payload.at_hash).toBeUndefined();

    // Without a nonce, OIDC Core 3.2.2.1 refuses the request.
    const noNonce = new URL(url);
    noNonce.searchParams.delete('nonce');
    const refused = await request(new CookieJar(), noNonce.toString());
    expect(refused.status).toBe(400);
    expect(formFields(refused.text)).toMatchObject({ error: 'invalid_request', state: 'rp-state' });
  });
});
