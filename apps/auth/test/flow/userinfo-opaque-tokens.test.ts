/**
 * With AUTH_API_TOKEN_FORMAT=opaque, userinfo accepts an opaque API token that carries openid
 * (oidc/opaque-access-tokens.ts), as it does a JWT: one sign-in gives the API and the profile.
 * Claims follow the token's OpenID scopes; a token without openid is 403; a revoked token, or one
 * whose session ended, is 401; an OpenID-only token is still oidc-provider's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { basic, startServer, type TestAuthServer } from '../support/flow.ts';

describe.each(TEST_ENGINES)('userinfo with opaque API tokens on %s', (engine) => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer({ engine, tokenFormat: 'opaque' });
  });
  afterAll(() => server.close());

  const userinfo = async (token: string) => {
    const res = await fetch(`${server.issuer}/oauth2/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, wwwAuthenticate: res.headers.get('www-authenticate'), body: (await res.json()) as Record<string, unknown> };
  };

  it('an opaque API token with openid profile email answers those claims', async () => {
    const user = await server.createUser({ groups: ['readers'] });
    const tokens = await server.login({ scope: 'openid profile email movies:read', username: user.username });
    expect(tokens.access_token.split('.')).toHaveLength(1);
    const account = (await server.app.services.accounts.findByUsername(user.username))!;
    expect(await userinfo(tokens.access_token)).toEqual({
      status: 200,
      wwwAuthenticate: null,
      body: { sub: account.id, name: `Test ${user.username}`, preferred_username: user.username, groups: ['readers'], email: `${user.username}@example.com`, email_verified: true },
    });
  });

  it('without openid (a refresh narrowed to the API scope) it is 403 insufficient_scope', async () => {
    const tokens = await server.login({ scope: 'openid movies:read' });
    const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), scope: 'movies:read' }),
    });
    const narrowed = (await res.json()) as { access_token: string };
    expect(await userinfo(narrowed.access_token)).toEqual({
      status: 403,
      wwwAuthenticate: `Bearer realm="${server.issuer}", error="insufficient_scope", error_description="the openid scope is required"`,
      body: { error: 'insufficient_scope', error_description: 'the openid scope is required' },
    });
  });

  it('a revoked token, and one whose session was signed out, are 401 invalid_token', async () => {
    const revoked = await server.login({ scope: 'openid movies:read' });
    await server.revoke(revoked.access_token);
    expect((await userinfo(revoked.access_token)).status).toBe(401);
    const ended = await server.login({ scope: 'openid movies:read' });
    expect((await userinfo(ended.access_token)).status).toBe(200);
    await server.logout(ended.id_token!);
    expect(await userinfo(ended.access_token)).toEqual({
      status: 401,
      wwwAuthenticate: `Bearer realm="${server.issuer}", error="invalid_token", error_description="invalid token provided"`,
      body: { error: 'invalid_token', error_description: 'invalid token provided' },
    });
  });

  it('an OpenID-only opaque token is answered by oidc-provider as before', async () => {
    const tokens = await server.login({ scope: 'openid email' });
    const res = await userinfo(tokens.access_token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['email', 'email_verified', 'sub']);
  });
});
