/**
 * The token path answers the same whether its lookups are joined into one read per request
 * (services.ts `tokenPathReads: 'joined'`, the server's default, with client rows reused while
 * unchanged) or every store reads on its own
 * (`'plain'`): the same claims on success, and the same refusals for a consumed token presented
 * again, a revoked grant, a scope policy change, a disabled account and a removed client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, TEST_ENGINES } from '@gatehouse/db/testing';
import { APP_TWO, authorizeUrl, basic, codeFrom, CookieJar, decodeJwt, exchange, refresh, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';

const SCOPE = 'openid profile email movies:read movies:write';

/** What a token response says, without the values that differ on every run (token texts, times, ids). */
function outcome(response: { status: number; body: Record<string, unknown> }, accountId?: string): Record<string, unknown> {
  const { body } = response;
  if (response.status !== 200) return { status: response.status, body };
  const access = decodeJwt(String(body.access_token));
  const id = body.id_token === undefined ? undefined : decodeJwt(String(body.id_token));
  return {
    status: 200,
    members: Object.keys(body).sort(),
    token_type: body.token_type,
    expires_in: body.expires_in,
    scope: body.scope,
    access: { claims: Object.keys(access).sort(), scope: access.scope, client_id: access.client_id, aud: access.aud, ownSub: access.sub === accountId },
    ...(id ? { id: { claims: Object.keys(id).sort(), name: id.name, email: id.email, ownSub: id.sub === accountId } } : {}),
  };
}

/** One pass through the token path's answers on `server`, as a list of outcomes. */
async function transcript(server: TestAuthServer): Promise<Record<string, unknown>[]> {
  const user = await server.createUser({ username: 'same-user', email: 'same@example.com', name: 'Same User', groups: ['staff'] });
  const accountId = (await server.app.services.accounts.findByUsername(user.username))!.id;
  const jar = new CookieJar();
  expect((await signIn(server, jar, user, authorizeUrl(server, { scope: SCOPE }))).status).toBe(302);
  const tokens = async (client = { ...server.testClient }) => {
    const res = await request(jar, authorizeUrl(server, { scope: SCOPE, clientId: client.clientId, redirectUri: client.redirectUri }));
    expect(res.status).toBe(302);
    const exchanged = await exchange(server, codeFrom(res.location), {}, client);
    expect(exchanged.status).toBe(200);
    return String(exchanged.body.refresh_token);
  };
  const seen: Record<string, unknown>[] = [];
  const note = (step: string, response: { status: number; body: Record<string, unknown> }) => seen.push({ step, ...outcome(response, accountId) });

  // A refresh, then the consumed token presented again (refused, and the grant with it).
  const first = await tokens();
  const rotated = await refresh(server, first);
  note('refresh', rotated);
  note('consumed token again', await refresh(server, first));
  note('rotated token of the replayed grant', await refresh(server, String(rotated.body.refresh_token)));

  // A revoked grant.
  const revoked = await tokens();
  await server.revoke(revoked);
  note('revoked grant', await refresh(server, revoked));

  // A scope policy change acts at the next refresh, both ways.
  const narrowed = await tokens();
  await server.app.services.scopePolicies.restrict('movies:write', ['editors']);
  const narrow = await refresh(server, narrowed);
  note('policy narrowed', narrow);
  await server.app.services.scopePolicies.clear('movies:write');
  note('policy cleared', await refresh(server, String(narrow.body.refresh_token)));

  // A disabled account.
  const disabled = await tokens();
  await server.app.services.accounts.setDisabled(user.username, Date.now());
  note('account disabled', await refresh(server, disabled));
  await server.app.services.accounts.setDisabled(user.username, null);

  // A removed client.
  const two = await tokens({ ...APP_TWO });
  await server.app.services.clients.remove(APP_TWO.clientId);
  const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(APP_TWO.clientId, APP_TWO.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: two }),
  });
  note('client removed', { status: response.status, body: (await response.json()) as Record<string, unknown> });
  return seen;
}

const INVALID_GRANT = { status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } };

describe.each(TEST_ENGINES)('the token path joined and plain answer the same, on %s', (engine) => {
  let joined: TestAuthServer;
  let plain: TestAuthServer;
  beforeAll(async () => {
    // Joined as server.ts composes it: on PostgreSQL, client rows are reused until a change is heard.
    joined = await startServer({ engine, apiScopes: ['movies:read', 'movies:write'], listenForClientChanges: true });
    plain = await startServer({ engine, apiScopes: ['movies:read', 'movies:write'], tokenPathReads: 'plain' });
  });
  afterAll(async () => {
    await joined?.close();
    await plain?.close();
  });

  it('refresh successes and refusals', async () => {
    // Which path ran is seen in the SQL: only the joined one reads a refresh token with its relatives.
    const joinedRead = (statements: readonly string[]) => statements.some((text) => text.includes('from oidc_payloads r'));
    let recorder = recordStatements(joined.database.db as never);
    const fast = await transcript(joined);
    recorder.stop();
    expect(joinedRead(recorder.statements)).toBe(true);
    recorder = recordStatements(plain.database.db as never);
    const slow = await transcript(plain);
    recorder.stop();
    expect(joinedRead(recorder.statements)).toBe(false);
    expect(slow).toEqual(fast);
    const success = (scope: string) => ({
      status: 200,
      members: ['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type'],
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      scope,
      access: expect.objectContaining({ scope, client_id: 'test-app', ownSub: true }),
      id: expect.objectContaining({ name: 'Same User', email: 'same@example.com', ownSub: true }),
    });
    expect(fast).toEqual([
      { step: 'refresh', ...success(SCOPE) },
      { step: 'consumed token again', ...INVALID_GRANT },
      { step: 'rotated token of the replayed grant', ...INVALID_GRANT },
      { step: 'revoked grant', ...INVALID_GRANT },
      { step: 'policy narrowed', ...success('openid profile email movies:read') },
      { step: 'policy cleared', ...success(SCOPE) },
      { step: 'account disabled', ...INVALID_GRANT },
      { step: 'client removed', status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } },
    ]);
  });
});
