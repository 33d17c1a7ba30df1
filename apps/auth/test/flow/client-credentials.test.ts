/**
 * client_credentials always yields an RFC 9068 JWT for the API (oidc/resource-server.ts):
 * without `scope` the client gets every API scope it may have (RFC 6749 3.3's pre-defined
 * default), a client that may have none gets invalid_scope, and a scope naming no API scope
 * is invalid_scope too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { basic, startServer, type TestAuthServer } from '../support/flow.ts';

const MACHINE = { clientId: 'machine', clientSecret: 'machine-secret-0123456789abcdef' };

describe.each(TEST_ENGINES)('client_credentials without a scope on %s', (engine) => {
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startServer({ engine });
    await server.app.services.clients.create({ ...MACHINE, name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'] });
  });
  afterAll(() => server.close());

  async function token(params: Record<string, string>) {
    const res = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: { authorization: basic(MACHINE.clientId, MACHINE.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...params }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  it('gets an at+jwt for the API audience with every API scope the client may have', async () => {
    const { status, body } = await token({});
    expect(status).toBe(200);
    const all = server.config.api.scopes.join(' ');
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: all });
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/oauth2/v1/keys`));
    const { payload, protectedHeader } = await jwtVerify(String(body.access_token), jwks, { issuer: server.issuer, audience: server.audience, typ: 'at+jwt' });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: MACHINE.clientId, client_id: MACHINE.clientId, aud: server.audience, scope: all });
  });

  it('a client limited to some API scopes gets exactly those', async () => {
    await server.app.services.scopePolicies.setClientScopes(MACHINE.clientId, ['movies:read', 'cars:read']);
    try {
      const { status, body } = await token({});
      expect(status).toBe(200);
      expect(body.scope).toBe('movies:read cars:read');
    } finally {
      await server.app.services.scopePolicies.setClientScopes(MACHINE.clientId, null);
    }
  });

  it('a client that may have no API scope (only an admin scope) gets invalid_scope', async () => {
    await server.app.services.scopePolicies.setClientScopes(MACHINE.clientId, ['admin:keys']);
    try {
      expect(await token({})).toEqual({
        status: 400,
        body: { error: 'invalid_scope', error_description: 'no API scope may be granted to this client (authctl client scopes)' },
      });
    } finally {
      await server.app.services.scopePolicies.setClientScopes(MACHINE.clientId, null);
    }
  });

  it('a scope naming no API scope is invalid_scope: a machine token has no user', async () => {
    expect(await token({ scope: 'openid profile' })).toEqual({
      status: 400,
      body: { error: 'invalid_scope', error_description: 'client_credentials grants API scopes only', scope: 'openid profile' },
    });
  });
});
