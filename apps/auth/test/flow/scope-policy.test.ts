import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { authorizeUrl, basic, codeFrom, CookieJar, decodeJwt, exchange, refresh, request, signIn, startServer, APP_TWO, type TestAuthServer } from '../support/flow.ts';

const SCOPE = 'openid profile movies:read movies:write';

describe.each(TEST_ENGINES)('the access policy (scope policies, client scopes) on %s', (engine) => {
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startServer({ engine });
    await server.app.services.scopePolicies.restrict('movies:write', ['editors']);
  });
  afterAll(() => server.close());

  /** Signs a new user of `groups` in and exchanges a code for `scope` (as `client`). */
  async function tokensFor(groups: string[], scope = SCOPE, client: { clientId: string; clientSecret: string; redirectUri: string } = server.testClient) {
    const jar = new CookieJar();
    const user = await server.createUser({ groups });
    const url = authorizeUrl(server, { scope, clientId: client.clientId, redirectUri: client.redirectUri });
    const done = await signIn(server, jar, user, url);
    expect(done.status).toBe(302);
    const authorized = await request(jar, url);
    expect(authorized.status).toBe(302);
    const tokens = await exchange(server, codeFrom(authorized.location), {}, client);
    expect(tokens.status).toBe(200);
    return { jar, user, url, body: tokens.body };
  }

  async function clientCredentials(clientId: string, secret: string, scope: string) {
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('a user outside the group gets a token without the restricted scope: response scope and JWT claim exact', async () => {
    const { body } = await tokensFor(['viewers']);
    expect(body.scope).toBe('openid profile movies:read');
    expect(decodeJwt(String(body.access_token)).scope).toBe('openid profile movies:read');
  });

  it('a user in the group gets it', async () => {
    const { body } = await tokensFor(['viewers', 'editors']);
    expect(body.scope).toBe('openid profile movies:read movies:write');
    expect(decodeJwt(String(body.access_token)).scope).toBe('openid profile movies:read movies:write');
  });

  it('asking again (the SSO session, a new code) does not get the scope either', async () => {
    const { jar, url } = await tokensFor(['viewers']);
    const again = await request(jar, url);
    expect(again.status).toBe(302);
    const second = await exchange(server, codeFrom(again.location));
    expect(second.status).toBe(200);
    expect(second.body.scope).toBe('openid profile movies:read');
    expect(decodeJwt(String(second.body.access_token)).scope).toBe('openid profile movies:read');
  });

  it('a refresh keeps to the granted set, and one asking for the scope is refused', async () => {
    const { body } = await tokensFor(['viewers']);
    const refreshed = await refresh(server, String(body.refresh_token));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('openid profile movies:read');
    expect(decodeJwt(String(refreshed.body.access_token)).scope).toBe('openid profile movies:read');
    const asking = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(refreshed.body.refresh_token), scope: 'openid movies:write' }),
    });
    expect(asking.status).toBe(400);
    expect(await asking.json()).toEqual({ error: 'invalid_scope', error_description: 'refresh token missing requested scope', scope: 'movies:write' });
  });

  it('an editor removed from the policy\'s groups loses the scope at the next refresh', async () => {
    const { body } = await tokensFor(['editors']);
    expect(body.scope).toBe('openid profile movies:read movies:write');
    await server.app.services.scopePolicies.restrict('movies:write', ['publishers']);
    try {
      const refreshed = await refresh(server, String(body.refresh_token));
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.scope).toBe('openid profile movies:read');
      expect(decodeJwt(String(refreshed.body.access_token)).scope).toBe('openid profile movies:read');
    } finally {
      await server.app.services.scopePolicies.restrict('movies:write', ['editors']);
    }
  });

  it('a client limited to some API scopes gets no others, whatever the user (authorization code)', async () => {
    await server.app.services.scopePolicies.setClientScopes(APP_TWO.clientId, ['movies:read']);
    const { body } = await tokensFor(['editors'], 'openid movies:read movies:write customers:read', APP_TWO);
    expect(body.scope).toBe('openid movies:read');
    expect(decodeJwt(String(body.access_token)).scope).toBe('openid movies:read');
    await server.app.services.scopePolicies.setClientScopes(APP_TWO.clientId, null);
    const open = await tokensFor(['editors'], 'openid movies:read movies:write customers:read', APP_TWO);
    expect(open.body.scope).toBe('openid movies:read movies:write customers:read');
  });

  it('client_credentials: only the client rule applies (no user, so no group check)', async () => {
    const { clientId, clientSecret } = server.introspectionClient;
    const open = await clientCredentials(clientId, clientSecret, 'movies:read movies:write');
    expect(open.status).toBe(200);
    expect(open.body.scope).toBe('movies:read movies:write');
    expect(decodeJwt(String(open.body.access_token)).scope).toBe('movies:read movies:write');

    await server.app.services.scopePolicies.setClientScopes(clientId, ['movies:read']);
    try {
      const limited = await clientCredentials(clientId, clientSecret, 'movies:read movies:write');
      expect(limited.status).toBe(200);
      expect(limited.body.scope).toBe('movies:read');
      expect(decodeJwt(String(limited.body.access_token)).scope).toBe('movies:read');
    } finally {
      await server.app.services.scopePolicies.setClientScopes(clientId, null);
    }
  });
});
