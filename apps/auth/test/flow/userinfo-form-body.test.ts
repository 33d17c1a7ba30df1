/**
 * Userinfo with the access token in a POST form body, `access_token=...` (RFC 6750 §2.2): a JWT
 * access token (jwt-userinfo.ts), or an opaque API token, is answered as in the Authorization
 * header; a token sent in two ways is 400 invalid_request (RFC 6750 §2); a token in the query
 * string stays refused; a DPoP-bound token in a body is refused, as it needs its proof.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { dpopKey } from '../support/dpop.ts';
import { startTestAuthServer, type TestAuthServer } from '../support/test-auth-server.ts';

const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

interface Answer {
  status: number;
  wwwAuthenticate: string | null;
  cacheControl: string | null;
  body: unknown;
}

async function userinfo(as: TestAuthServer, init: { form?: Record<string, string>; authorization?: string; dpop?: string; query?: string }): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.form) headers['content-type'] = FORM;
  if (init.authorization) headers.authorization = init.authorization;
  if (init.dpop) headers.dpop = init.dpop;
  const res = await fetch(`${as.issuer}/oauth2/v1/userinfo${init.query ?? ''}`, { method: 'POST', headers, ...(init.form ? { body: new URLSearchParams(init.form) } : {}) });
  return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate'), cacheControl: res.headers.get('cache-control'), body: await res.json() };
}

const invalidRequest = (issuer: string, description: string, scheme = 'Bearer'): Answer => ({
  status: 400,
  wwwAuthenticate: `${scheme} realm="${issuer}", error="invalid_request", error_description="${description}"${scheme === 'DPoP' ? `, algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"` : ''}`,
  cacheControl: 'no-store',
  body: { error: 'invalid_request', error_description: description },
});

describe.each(TEST_ENGINES)('userinfo with the token in a form body (JWT access tokens) on %s', (engine) => {
  let as: TestAuthServer;
  beforeAll(async () => {
    as = await startTestAuthServer({ engine });
  }, 60_000);
  afterAll(() => as?.close());

  it('a JWT API token that carries openid, sent as access_token in the body, answers its claims', async () => {
    const user = await as.createUser({ groups: ['readers'] });
    const tokens = await as.login({ scope: 'openid profile email movies:read', username: user.username });
    expect(tokens.access_token.split('.')).toHaveLength(3);
    const account = (await as.app.services.accounts.findByUsername(user.username))!;
    expect(await userinfo(as, { form: { access_token: tokens.access_token } })).toEqual({
      status: 200,
      wwwAuthenticate: null,
      cacheControl: 'no-store',
      body: { sub: account.id, name: `Test ${user.username}`, preferred_username: user.username, groups: ['readers'], email: `${user.username}@example.com`, email_verified: true },
    });
    // The OpenID-only token (audience: userinfo) too, with only its own scopes' claims.
    const openidOnly = await as.login({ scope: 'openid', username: user.username });
    expect(await userinfo(as, { form: { access_token: openidOnly.access_token } })).toMatchObject({ status: 200, body: { sub: account.id } });
    expect(Object.keys((await userinfo(as, { form: { access_token: openidOnly.access_token } })).body as object)).toEqual(['sub']);
  });

  it('the same token in the header and the body is 400 invalid_request; in the header and the query too', async () => {
    const tokens = await as.login({ scope: 'openid movies:read' });
    const description = 'access token must only be provided using one mechanism';
    expect(await userinfo(as, { authorization: `Bearer ${tokens.access_token}`, form: { access_token: tokens.access_token } })).toEqual(invalidRequest(as.issuer, description));
    expect(await userinfo(as, { authorization: `Bearer ${tokens.access_token}`, query: `?access_token=${tokens.access_token}` })).toEqual(invalidRequest(as.issuer, description));
    // oidc-provider's own answers: body and query together, and the query string alone.
    expect(await userinfo(as, { form: { access_token: tokens.access_token }, query: `?access_token=${tokens.access_token}` })).toEqual(invalidRequest(as.issuer, description));
    expect(await userinfo(as, { query: `?access_token=${tokens.access_token}` })).toEqual(invalidRequest(as.issuer, 'access tokens must not be provided via query parameter'));
    // The header alone, with a form body that carries no token, still answers, whatever else the body repeats.
    expect((await userinfo(as, { authorization: `Bearer ${tokens.access_token}`, form: { scope: 'openid' } })).status).toBe(200);
    const repeated = await fetch(`${as.issuer}/oauth2/v1/userinfo`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': FORM }, body: 'claims=a&claims=a' });
    expect(repeated.status).toBe(200);
    // A body larger than oidc-provider reads is refused in JSON, as oidc-provider refuses it.
    const large = await fetch(`${as.issuer}/oauth2/v1/userinfo`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': FORM }, body: `x=${'a'.repeat(57 * 1024)}` });
    expect({ status: large.status, body: await large.json() }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'failed to parse the request body' } });
    const largeAlone = await fetch(`${as.issuer}/oauth2/v1/userinfo`, { method: 'POST', headers: { 'content-type': FORM }, body: `access_token=${tokens.access_token}&x=${'a'.repeat(57 * 1024)}` });
    expect({ status: largeAlone.status, body: await largeAlone.json() }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'failed to parse the request body' } });
  });

  it('a body token without openid is 403, a revoked or forged one 401, as in the header', async () => {
    const clientSecret = randomBytes(24).toString('base64url');
    await as.app.services.clients.create({ clientId: 'form-body-machine', redirectUris: [], grantTypes: ['client_credentials'], clientSecret });
    const res = await fetch(`${as.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic('form-body-machine', clientSecret), 'content-type': FORM },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
    });
    const machine = ((await res.json()) as { access_token: string }).access_token;
    expect(await userinfo(as, { form: { access_token: machine } })).toEqual({
      status: 403,
      wwwAuthenticate: `Bearer realm="${as.issuer}", error="insufficient_scope", error_description="the openid scope is required"`,
      cacheControl: 'no-store',
      body: { error: 'insufficient_scope', error_description: 'the openid scope is required' },
    });
    const invalid: Answer = {
      status: 401,
      wwwAuthenticate: `Bearer realm="${as.issuer}", error="invalid_token", error_description="invalid token provided"`,
      cacheControl: 'no-store',
      body: { error: 'invalid_token', error_description: 'invalid token provided' },
    };
    const revoked = await as.login({ scope: 'openid movies:read' });
    await as.revoke(revoked.access_token);
    expect(await userinfo(as, { form: { access_token: revoked.access_token } })).toEqual(invalid);
    const [header, payload] = revoked.access_token.split('.');
    expect(await userinfo(as, { form: { access_token: `${header}.${payload}.AAAA` } })).toEqual(invalid);
  });

  it('a DPoP-bound token in the body is refused: it needs the DPoP scheme and its proof', async () => {
    const key = await dpopKey();
    const tokens = await as.login({ scope: 'openid profile', dpop: (url) => key.proof('POST', url) });
    expect(tokens.token_type).toBe('DPoP');
    const description = 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof';
    expect(await userinfo(as, { form: { access_token: tokens.access_token } })).toEqual({
      status: 401,
      wwwAuthenticate: `DPoP realm="${as.issuer}", error="invalid_token", error_description="${description}", algs="${DPOP_SIGNING_ALGORITHMS.join(' ')}"`,
      cacheControl: 'no-store',
      body: { error: 'invalid_token', error_description: description },
    });
    // A proof beside a body token: oidc-provider's answer, a DPoP token goes in the header.
    const proof = await key.proof('POST', `${as.issuer}/oauth2/v1/userinfo`, { accessToken: tokens.access_token });
    expect(await userinfo(as, { form: { access_token: tokens.access_token }, dpop: proof })).toEqual(
      invalidRequest(as.issuer, '`DPoP` tokens must be provided via an authorization header', 'DPoP'),
    );
  });
});

describe.each(TEST_ENGINES)('userinfo with the token in a form body (opaque access tokens) on %s', (engine) => {
  let as: TestAuthServer;
  beforeAll(async () => {
    as = await startTestAuthServer({ engine, tokenFormat: 'opaque' });
  }, 60_000);
  afterAll(() => as?.close());

  it('an opaque API token with openid, and an OpenID-only one, answer from the body', async () => {
    const user = await as.createUser({ groups: ['readers'] });
    const account = (await as.app.services.accounts.findByUsername(user.username))!;
    const api = await as.login({ scope: 'openid email movies:read', username: user.username });
    expect(api.access_token.split('.')).toHaveLength(1);
    expect(await userinfo(as, { form: { access_token: api.access_token } })).toEqual({
      status: 200,
      wwwAuthenticate: null,
      cacheControl: 'no-store',
      body: { sub: account.id, email: `${user.username}@example.com`, email_verified: true },
    });
    const openidOnly = await as.login({ scope: 'openid', username: user.username });
    expect(await userinfo(as, { form: { access_token: openidOnly.access_token } })).toMatchObject({ status: 200, body: { sub: account.id } });
    expect(await userinfo(as, { authorization: `Bearer ${api.access_token}`, form: { access_token: api.access_token } })).toEqual(
      invalidRequest(as.issuer, 'access token must only be provided using one mechanism'),
    );
  });
});
