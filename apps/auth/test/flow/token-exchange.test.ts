/**
 * Token exchange (RFC 8693, oidc/token-exchange.ts) against a real server, through openid-client's
 * genericGrantRequest: a resource server's client trades the user's access token for one of
 * another audience, within its policy and never beyond the subject token; claims checked with jose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { adminAudience } from '../../src/policy/admin-scopes.ts';
import { basic, capturingLogger, decodeJwt, startServer, type TestAuthServer } from '../support/flow.ts';

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const REPORTS = { clientId: 'reports', clientSecret: 'reports-secret-0123456789abcdef' };
const OTHER = { clientId: 'other-rs', clientSecret: 'other-rs-secret-0123456789abcdef' };

type Caller = { clientId: string; clientSecret: string };

/** The raw answer of `server`'s token endpoint to an exchange by `as` (subject_token_type an access token). */
async function exchangeRaw(server: TestAuthServer, as: Caller, params: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(as.clientId, as.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: GRANT, subject_token_type: ACCESS_TOKEN, ...params }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.each(TEST_ENGINES)('token exchange on %s', (engine) => {
  let server: TestAuthServer;
  let reports: client.Configuration;
  let other: client.Configuration;
  const { logger, lines } = capturingLogger();

  beforeAll(async () => {
    server = await startServer({ engine, logger });
    await server.app.services.clients.create({
      ...REPORTS,
      name: 'Reports service',
      redirectUris: [],
      grantTypes: [GRANT],
      tokenExchange: { audiences: [server.audience, adminAudience(server.issuer)], scopes: ['movies:read', 'cars:read', 'admin:users:read'] },
    });
    await server.app.services.clients.create({ ...OTHER, name: 'Other', redirectUris: [], grantTypes: ['client_credentials'] });
    const discover = (c: { clientId: string; clientSecret: string }) =>
      client.discovery(new URL(server.issuer), c.clientId, c.clientSecret, client.ClientSecretBasic(c.clientSecret), { execute: [client.allowInsecureRequests] });
    reports = await discover(REPORTS);
    other = await discover(OTHER);
  }, 60_000);
  afterAll(() => server.close());

  /** The raw answer of the token endpoint, for the refusals. */
  const post = (as: Caller, params: Record<string, string>) => exchangeRaw(server, as, params);

  async function verify(token: string, audience: string) {
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`));
    return jwtVerify(token, jwks, { issuer: server.issuer, audience, typ: 'at+jwt', algorithms: ['RS256'] });
  }

  it('discovery advertises the grant', async () => {
    expect(reports.serverMetadata().grant_types_supported).toContain(GRANT);
  });

  it('an allowed exchange: the user\'s sub, the requested audience, a narrower scope and act naming the acting client', async () => {
    const user = await server.createUser({ username: `ex-${engine}-allowed` });
    const subject = await server.login({ scope: 'openid movies:read movies:write', username: user.username });
    const subjectClaims = decodeJwt(subject.access_token);
    const before = lines.length;

    const answer = await client.genericGrantRequest(reports, GRANT, {
      subject_token: subject.access_token,
      subject_token_type: ACCESS_TOKEN,
      audience: server.audience,
      scope: 'movies:read',
    });
    expect(answer).toMatchObject({ issued_token_type: ACCESS_TOKEN, token_type: 'bearer', scope: 'movies:read' });
    expect(Object.keys(answer).sort()).toEqual(['access_token', 'expires_in', 'issued_token_type', 'scope', 'token_type']);

    const { payload, protectedHeader } = await verify(answer.access_token, server.audience);
    // The access-token lifetime, cut to what is left of the subject token (a second may have passed since it was issued).
    expect(answer.expires_in).toBe(Math.min(3600, subjectClaims.exp! - payload.iat!));
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      sub: subjectClaims.sub,
      aud: server.audience,
      client_id: REPORTS.clientId,
      scope: 'movies:read',
      act: { sub: REPORTS.clientId },
      grant_id: subjectClaims.grant_id,
    });
    // The token lives exactly as long as the answer says (3600 s, or a second less when the subject's clock second had passed).
    expect(payload.exp! - payload.iat!).toBe(answer.expires_in);
    expect(payload.exp!).toBeLessThanOrEqual(subjectClaims.exp!);

    // The API's own client sees an active token of its audience, with the user and the narrower scope.
    const introspected = await fetch(`${server.issuer}/oauth2/v1/introspect`, {
      method: 'POST',
      headers: { authorization: basic(server.introspectionClient.clientId, server.introspectionClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: answer.access_token }),
    });
    expect(await introspected.json()).toMatchObject({ active: true, sub: subjectClaims.sub, client_id: REPORTS.clientId, scope: 'movies:read', username: user.username });

    expect(lines.slice(before).filter((l) => l.event === 'token.exchange.issued')).toEqual([
      expect.objectContaining({ client_id: REPORTS.clientId, account_id: subjectClaims.sub, subject_client_id: server.testClient.clientId, audience: server.audience, scope: 'movies:read', jti: payload.jti }),
    ]);
  });

  it('without scope: the subject token\'s scopes the policy allows for that audience', async () => {
    const subject = await server.login({ scope: 'openid movies:read movies:write cars:read' });
    const answer = await client.genericGrantRequest(reports, GRANT, { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, audience: server.audience });
    const scopes = new Set(answer.scope!.split(' '));
    expect(scopes).toEqual(new Set(['movies:read', 'cars:read']));
  });

  it('the answer is not cached and has no refresh token', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(REPORTS.clientId, REPORTS.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: GRANT, subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, resource: server.audience }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ access_token: expect.any(String), issued_token_type: ACCESS_TOKEN, token_type: 'Bearer', expires_in: expect.any(Number), scope: 'movies:read' });
    expect(body.expires_in).toBe(Math.min(3600, decodeJwt(subject.access_token).exp! - decodeJwt(String(body.access_token)).iat!));
  });

  it('an exchanged token\'s act nests the act of its subject token', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    const first = await client.genericGrantRequest(reports, GRANT, { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, audience: server.audience });
    const second = await client.genericGrantRequest(reports, GRANT, { subject_token: first.access_token, subject_token_type: ACCESS_TOKEN, audience: server.audience });
    const { payload } = await verify(second.access_token, server.audience);
    expect(payload.act).toEqual({ sub: REPORTS.clientId, act: { sub: REPORTS.clientId } });
  });

  it('refused by policy: an audience outside it is invalid_target', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    const before = lines.length;
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: 'https://payments.example' })).toEqual({
      status: 400,
      body: { error: 'invalid_target', error_description: 'the client may not exchange tokens for the audience https://payments.example' },
    });
    expect(lines.slice(before).filter((l) => l.event === 'token.exchange.refused')).toEqual([
      expect.objectContaining({ client_id: REPORTS.clientId, error: 'invalid_target' }),
    ]);
  });

  it('refused by policy: a scope the subject token had but the policy does not allow is invalid_scope', async () => {
    const subject = await server.login({ scope: 'movies:read movies:write' });
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience, scope: 'movies:write' })).toEqual({
      status: 400,
      body: { error: 'invalid_scope', error_description: "scope movies:write is not in the client's token-exchange policy", scope: 'movies:write' },
    });
  });

  it('never more than the subject token had: a scope it lacked is invalid_scope, whatever the policy allows', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience, scope: 'movies:read cars:read' })).toEqual({
      status: 400,
      body: { error: 'invalid_scope', error_description: 'scope cars:read was not granted to the subject token', scope: 'cars:read' },
    });
    // The admin API is in the policy, but an API token holds no admin scope to exchange.
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: adminAudience(server.issuer) })).toEqual({
      status: 400,
      body: { error: 'invalid_scope', error_description: `no scope of the subject token may be exchanged for the audience ${adminAudience(server.issuer)}` },
    });
  });

  it('a revoked subject token is invalid_grant', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    await server.revoke(subject.access_token);
    const before = lines.length;
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'subject_token is revoked or no longer valid' },
    });
    expect(lines.slice(before).filter((l) => l.event === 'token.exchange.refused')).toEqual([
      expect.objectContaining({ client_id: REPORTS.clientId, error: 'invalid_grant' }),
    ]);
  });

  it('a token of the user\'s revoked grant (logout) is invalid_grant, and so is the exchanged token at introspection', async () => {
    const subject = await server.login({ scope: 'openid movies:read' });
    const exchanged = await client.genericGrantRequest(reports, GRANT, { subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN, audience: server.audience });
    await server.logout(subject.id_token!);
    expect((await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).body.error).toBe('invalid_grant');
    const introspected = await fetch(`${server.issuer}/oauth2/v1/introspect`, {
      method: 'POST',
      headers: { authorization: basic(server.introspectionClient.clientId, server.introspectionClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: exchanged.access_token }),
    });
    expect(await introspected.json()).toEqual({ active: false });
  });

  it('a forged, a foreign or a machine subject token is invalid_grant', async () => {
    const forged = await server.sign({ sub: 'nobody', client_id: 'test-app', jti: 'x', exp: Math.floor(Date.now() / 1000) + 60 }, { typ: 'JWT' });
    expect(await post(REPORTS, { subject_token: forged, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'subject_token is not an access token issued by this server' },
    });
    expect((await post(REPORTS, { subject_token: 'not-a-token', audience: server.audience })).body).toEqual({
      error: 'invalid_grant',
      error_description: 'subject_token is not an active access token of this server (unknown, expired or revoked)',
    });
    const machine = await client.clientCredentialsGrant(other, { scope: 'movies:read' });
    expect(await post(REPORTS, { subject_token: machine.access_token, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: "subject_token has no user: only a user's token can be exchanged" },
    });
  });

  it('an expired subject token is invalid_grant', async () => {
    const expired = await server.sign(
      { sub: 'someone', client_id: 'test-app', jti: 'expired-1', iss: server.issuer, aud: server.audience, iat: 1_000, exp: 2_000, scope: 'movies:read' },
      { typ: 'at+jwt' },
    );
    expect(await post(REPORTS, { subject_token: expired, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'subject_token is expired' },
    });
  });

  it('a client not registered for the grant is unauthorized_client', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    const before = lines.length;
    expect(await post(OTHER, { subject_token: subject.access_token, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'unauthorized_client', error_description: 'the client is not allowed the token-exchange grant' },
    });
    expect(lines.slice(before).filter((l) => l.event === 'token.exchange.refused')).toEqual([
      expect.objectContaining({ client_id: OTHER.clientId, error: 'unauthorized_client' }),
    ]);
  });

  it.each([
    [{ subject_token_type: '' }, 'missing required parameter subject_token_type'],
    [{ subject_token_type: 'urn:ietf:params:oauth:token-type:id_token' }, `unsupported subject_token_type: only ${ACCESS_TOKEN} is accepted`],
    [{ requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' }, `unsupported requested_token_type: only ${ACCESS_TOKEN} is issued`],
    [{ actor_token: 'a', actor_token_type: ACCESS_TOKEN }, 'actor_token is not supported: the acting party is the authenticated client'],
    [{ actor_token: 'a' }, 'actor_token is not supported: the acting party is the authenticated client'],
    [{ actor_token_type: ACCESS_TOKEN }, 'actor_token is not supported: the acting party is the authenticated client'],
    [{ resource: 'https://elsewhere.example' }, 'audience and resource must name the same target: one token has one audience'],
  ])('%j is invalid_request', async (params, description) => {
    const subject = await server.login({ scope: 'movies:read' });
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience, ...params })).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: description },
    });
  });

  it('a client that requires DPoP-bound tokens is invalid_request: the exchange binds no key', async () => {
    const bound = { clientId: 'bound-rs', clientSecret: 'bound-rs-secret-0123456789abcdef' };
    await server.app.services.clients.create({ ...bound, redirectUris: [], grantTypes: [GRANT], dpopBoundAccessTokens: true, tokenExchange: { audiences: [server.audience], scopes: ['movies:read'] } });
    const subject = await server.login({ scope: 'movies:read' });
    expect(await post(bound, { subject_token: subject.access_token, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'token exchange issues no DPoP-bound token, and this client requires them (dpop_bound_access_tokens)' },
    });
  });

  it('a missing subject_token is invalid_request', async () => {
    expect(await post(REPORTS, { audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: 'missing required parameter subject_token' },
    });
  });

  it('without an audience, a policy naming several is invalid_target', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    expect(await post(REPORTS, { subject_token: subject.access_token })).toEqual({
      status: 400,
      body: { error: 'invalid_target', error_description: 'audience is required: the client may exchange for several audiences' },
    });
  });
});

describe('token exchange: the new token never outlives the subject token', () => {
  let server: TestAuthServer;
  let now = Date.now();

  beforeAll(async () => {
    server = await startServer({ clock: () => now });
    await server.app.services.clients.create({ ...REPORTS, redirectUris: [], grantTypes: [GRANT], tokenExchange: { audiences: [server.audience], scopes: ['movies:read'] } });
  }, 60_000);
  afterAll(() => server.close());

  it('expires_in is what is left of the subject token when that is less than the access-token lifetime', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    const { exp } = decodeJwt(subject.access_token);
    // 1000 s before the subject token expires, by the server's clock.
    now = (exp! - 1000) * 1000;
    const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(REPORTS.clientId, REPORTS.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: GRANT, subject_token: subject.access_token, subject_token_type: ACCESS_TOKEN }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; expires_in: number };
    expect(body.expires_in).toBe(1000);
    const claims = decodeJwt(body.access_token);
    expect(claims.exp! - claims.iat!).toBe(1000);
  });
});


describe.each(TEST_ENGINES)('token exchange of opaque subject tokens (AUTH_API_TOKEN_FORMAT=opaque) on %s', (engine) => {
  let server: TestAuthServer;
  let offset = 0;
  const { logger, lines } = capturingLogger();

  beforeAll(async () => {
    server = await startServer({ engine, logger, tokenFormat: 'opaque', clock: () => Date.now() + offset });
    await server.app.services.clients.create({ ...REPORTS, redirectUris: [], grantTypes: [GRANT], tokenExchange: { audiences: [server.audience], scopes: ['movies:read'] } });
    await server.app.services.clients.create({ ...OTHER, redirectUris: [], grantTypes: ['client_credentials'] });
  }, 60_000);
  afterAll(() => server.close());

  const post = (as: Caller, params: Record<string, string>) => exchangeRaw(server, as, params);

  async function introspect(token: string) {
    const res = await fetch(`${server.issuer}/oauth2/v1/introspect`, {
      method: 'POST',
      headers: { authorization: basic(server.introspectionClient.clientId, server.introspectionClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });
    return (await res.json()) as Record<string, unknown>;
  }

  it('an opaque user token is exchanged: the user\'s sub, act naming the acting client, and the subject token\'s grant', async () => {
    const user = await server.createUser({ username: `ex-opaque-${engine}` });
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    const subject = await server.login({ scope: 'openid movies:read movies:write', username: user.username });
    expect(subject.access_token.split('.')).toHaveLength(1);
    const subjectSeen = await introspect(subject.access_token);
    expect(subjectSeen).toMatchObject({ active: true, sub: account.id, exp: expect.any(Number) });
    const before = lines.length;

    const answer = await post(REPORTS, { subject_token: subject.access_token, audience: server.audience, scope: 'movies:read' });
    expect(answer).toEqual({
      status: 200,
      body: { access_token: expect.any(String), issued_token_type: ACCESS_TOKEN, token_type: 'Bearer', expires_in: expect.any(Number), scope: 'movies:read' },
    });
    const exchanged = String(answer.body.access_token);
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`));
    const { payload } = await jwtVerify(exchanged, jwks, { issuer: server.issuer, audience: server.audience, typ: 'at+jwt', algorithms: ['RS256'] });
    expect(payload).toMatchObject({ sub: account.id, aud: server.audience, client_id: REPORTS.clientId, scope: 'movies:read', act: { sub: REPORTS.clientId } });
    expect(payload.grant_id).toEqual(expect.any(String));
    // The access-token lifetime, cut to what is left of the subject token (a second may have passed).
    expect(answer.body.expires_in).toBe(payload.exp! - payload.iat!);
    expect(payload.exp!).toBeLessThanOrEqual(subjectSeen.exp as number);
    expect(answer.body.expires_in).toBeGreaterThanOrEqual(3595);
    expect(await introspect(exchanged)).toMatchObject({ active: true, sub: account.id, client_id: REPORTS.clientId, scope: 'movies:read' });
    expect(lines.slice(before).filter((l) => l.event === 'token.exchange.issued')).toEqual([
      expect.objectContaining({ client_id: REPORTS.clientId, account_id: account.id, subject_client_id: server.testClient.clientId, audience: server.audience, scope: 'movies:read' }),
    ]);

    // The exchanged token carries the subject token's grant: ending it (logout) ends both.
    await server.logout(subject.id_token!);
    expect(await introspect(exchanged)).toEqual({ active: false });
    expect((await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).body.error).toBe('invalid_grant');
  });

  it('a revoked opaque subject token is invalid_grant', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    await server.revoke(subject.access_token);
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'subject_token is not an active access token of this server (unknown, expired or revoked)' },
    });
  });

  it('an expired opaque subject token is invalid_grant', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    offset = 3601 * 1000;
    try {
      expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).toEqual({
        status: 400,
        body: { error: 'invalid_grant', error_description: 'subject_token is not an active access token of this server (unknown, expired or revoked)' },
      });
    } finally {
      offset = 0;
    }
  });

  it('an opaque token of a grant that is gone is invalid_grant', async () => {
    const subject = await server.login({ scope: 'movies:read' });
    // The grant's row goes, the token's stays: the token is found, its grant is not.
    const row = await server.database.db.selectFrom('oidc_payloads').select('grant_id').where('model', '=', 'AccessToken').where('id', '=', subject.access_token).executeTakeFirstOrThrow();
    expect(row.grant_id).toEqual(expect.any(String));
    await server.database.db.deleteFrom('oidc_payloads').where('model', '=', 'Grant').where('id', '=', row.grant_id!).execute();
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'subject_token is revoked or no longer valid' },
    });
  });

  it('an opaque token of a disabled user is invalid_grant, and so is a client_credentials token (no user)', async () => {
    const user = await server.createUser({ username: `ex-opaque-off-${engine}` });
    const subject = await server.login({ scope: 'movies:read', username: user.username });
    expect((await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).status).toBe(200);
    await server.app.services.accounts.setDisabled(user.username, Date.now());
    expect(await post(REPORTS, { subject_token: subject.access_token, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'subject_token is revoked or no longer valid' },
    });

    const machine = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(OTHER.clientId, OTHER.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
    });
    const machineToken = ((await machine.json()) as { access_token: string }).access_token;
    expect(machineToken.split('.')).toHaveLength(1);
    expect(await post(REPORTS, { subject_token: machineToken, audience: server.audience })).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: "subject_token has no user: only a user's token can be exchanged" },
    });
  });
});
