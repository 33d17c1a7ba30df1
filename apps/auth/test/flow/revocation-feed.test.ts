import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { RevocationEvent, RevocationFeedPage } from '@gatehouse/contracts';
import { decodeJwt } from 'jose';
import { authorizeUrl, basic, codeFrom, CookieJar, exchange, refresh, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';

describe.each(TEST_ENGINES)('the revocation feed on %s', (engine) => {
  let server: TestAuthServer;
  let skewMs = 0;
  const jar = new CookieJar();

  beforeAll(async () => {
    server = await startServer({ engine, clock: () => Date.now() + skewMs });
    const user = await server.createUser();
    expect((await signIn(server, jar, user, authorizeUrl(server))).status).toBe(302);
  });
  afterAll(() => server.close());

  const feedUrl = (query = '') => `${server.issuer}/oauth2/v1/revocations${query}`;
  const apiAuth = () => basic(server.introspectionClient.clientId, server.introspectionClient.clientSecret);
  const page = async (since: number, extra = '') => {
    const res = await fetch(feedUrl(`?since=${since}${extra}`), { headers: { authorization: apiAuth() } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    return RevocationFeedPage.parse(await res.json());
  };
  /** Moves the server's clock past the feed's settle time, so new entries are served. */
  const settle = () => {
    skewMs += 1_100;
  };
  async function freshTokens(scope = 'openid movies:read') {
    const res = await request(jar, authorizeUrl(server, { scope }));
    const tokens = await exchange(server, codeFrom(res.location));
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }

  const BASIC_CHALLENGE = 'Basic realm="revocations", charset="UTF-8"';
  const answer = async (res: Response) => ({ status: res.status, wwwAuthenticate: res.headers.get('www-authenticate'), cacheControl: res.headers.get('cache-control'), body: await res.json() });
  const noCredentials = {
    status: 401,
    wwwAuthenticate: BASIC_CHALLENGE,
    cacheControl: 'no-store',
    body: { error: 'invalid_client', error_description: "The revocation feed needs the credentials of the resource server's client (HTTP Basic)." },
  };

  it('needs credentials: no, wrong or public credentials are 401 invalid_client with a Basic challenge', async () => {
    expect(await answer(await fetch(feedUrl()))).toEqual(noCredentials);
    expect(await answer(await fetch(feedUrl(), { headers: { authorization: basic('api', 'not-the-secret-at-all') } }))).toEqual(noCredentials);
    expect(await answer(await fetch(feedUrl(), { headers: { authorization: basic('nobody', 'not-the-secret-at-all') } }))).toEqual(noCredentials);
    await server.app.services.clients.create({ clientId: 'feed-spa', public: true, redirectUris: ['http://127.0.0.1:7/feed'] });
    expect(await answer(await fetch(feedUrl(), { headers: { authorization: basic('feed-spa', 'anything-at-all') } }))).toEqual(noCredentials);
  });

  it("only the resource server's client (AUTH_API_CLIENT_ID) reads it: another confidential client is 403 unauthorized_client", async () => {
    const forbidden = {
      status: 403,
      wwwAuthenticate: null,
      cacheControl: 'no-store',
      body: { error: 'unauthorized_client', error_description: "Only the resource server's client may read the revocation feed." },
    };
    // A relying party with valid credentials: every event names a user and a grant, not its business.
    expect(await answer(await fetch(feedUrl(), { headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret) } }))).toEqual(forbidden);
    const secret = 'a-machine-client-secret-long-enough-0123456789';
    await server.app.services.clients.create({ clientId: 'feed-machine', redirectUris: [], grantTypes: ['client_credentials'], clientSecret: secret });
    expect(await answer(await fetch(feedUrl(), { headers: { authorization: basic('feed-machine', secret), accept: 'text/event-stream' } }))).toEqual(forbidden);
    expect((await fetch(feedUrl(), { headers: { authorization: apiAuth() } })).status).toBe(200);
  });

  it('honours the registered method: HTTP Basic is client_secret_basic, a client registered for another is 401 saying so', async () => {
    const { clients } = server.app.services;
    const wrongMethod = (method: string) => ({
      status: 401,
      wwwAuthenticate: BASIC_CHALLENGE,
      cacheControl: 'no-store',
      body: {
        error: 'invalid_client',
        error_description: `The revocation feed accepts HTTP Basic credentials only: register the client for client_secret_basic (it is registered for ${method}).`,
      },
    });
    try {
      for (const method of ['client_secret_post', 'client_secret_jwt'] as const) {
        await clients.update('api', { authMethod: method });
        expect(await answer(await fetch(feedUrl(), { headers: { authorization: apiAuth() } })), method).toEqual(wrongMethod(method));
        // Only once the secret matched does the answer name the registered method.
        expect(await answer(await fetch(feedUrl(), { headers: { authorization: basic('api', 'not-the-secret-at-all') } })), method).toEqual(noCredentials);
      }
    } finally {
      await clients.update('api', { authMethod: 'client_secret_basic' });
    }
    expect((await fetch(feedUrl(), { headers: { authorization: apiAuth() } })).status).toBe(200);
  });

  it('refuses a bad cursor or limit with 400, and other methods with 405', async () => {
    for (const query of ['?since=-1', '?since=abc', '?since=1.5', '?limit=0', '?limit=1001']) {
      const res = await fetch(feedUrl(query), { headers: { authorization: apiAuth() } });
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_request');
    }
    const post = await fetch(feedUrl(), { method: 'POST', headers: { authorization: apiAuth() } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('serves token, grant revocations in order, after they settle, and pages with a cursor', async () => {
    const start = (await page(0)).cursor;
    const revoked = await freshTokens();
    await server.revoke(revoked.access_token);
    const replayed = await freshTokens();
    expect((await refresh(server, replayed.refresh_token)).status).toBe(200);
    expect((await refresh(server, replayed.refresh_token)).status).toBe(400);

    // Entries younger than the settle time are held back (a slower concurrent writer may still commit a smaller id).
    expect((await page(start)).events).toEqual([]);
    settle();
    const all = await page(start);
    const { jti, exp } = decodeJwt(revoked.access_token);
    const grantId = decodeJwt(replayed.access_token).grant_id as string;
    expect(all.events.map((e) => e.type)).toEqual(['token-revoked', 'session-revoked']);
    expect(all.events[0]).toMatchObject({ type: 'token-revoked', jti, exp });
    expect(all.events[1]).toMatchObject({ type: 'session-revoked', grant_id: grantId });
    expect(all.events[0]!.id).toBeLessThan(all.events[1]!.id);
    expect(all.cursor).toBe(all.events[1]!.id);
    expect(all.more).toBe(false);

    const first = await page(start, '&limit=1');
    expect(first.events).toEqual([all.events[0]]);
    expect(first.more).toBe(true);
    const second = await page(first.cursor, '&limit=1');
    expect(second.events).toEqual([all.events[1]]);
    expect(second.more).toBe(false);
    expect(await page(all.cursor)).toEqual({ events: [], cursor: all.cursor, more: false });
  });

  it('streams new revocations as Server-Sent Events and resumes from Last-Event-ID', async () => {
    const start = (await page(0)).cursor;
    const controller = new AbortController();
    const res = await fetch(feedUrl(`?since=${start}`), { headers: { authorization: apiAuth(), accept: 'text/event-stream' }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    const nextEvent = async (): Promise<{ id: string; event: string; data: RevocationEvent }> => {
      for (;;) {
        const blocks = buffered.split('\n\n');
        for (let i = 0; i < blocks.length - 1; i += 1) {
          const lines = Object.fromEntries(blocks[i]!.split('\n').filter((l) => /^(id|event|data): /.test(l)).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
          if (lines.data) {
            buffered = blocks.slice(i + 1).join('\n\n');
            return { id: lines.id!, event: lines.event!, data: RevocationEvent.parse(JSON.parse(lines.data)) };
          }
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buffered += value;
      }
    };
    try {
      const tokens = await freshTokens();
      await server.revoke(tokens.access_token);
      settle();
      const event = await nextEvent();
      expect(event.event).toBe('token-revoked');
      expect(event.data).toMatchObject({ type: 'token-revoked', jti: decodeJwt(tokens.access_token).jti });
      expect(event.id).toBe(String(event.data.id));
    } finally {
      controller.abort();
    }

    // A reconnecting EventSource sends Last-Event-ID: the stream resumes after it.
    const later = await freshTokens();
    await server.revoke(later.access_token);
    settle();
    const resumed = new AbortController();
    const again = await fetch(feedUrl(), { headers: { authorization: apiAuth(), accept: 'text/event-stream', 'last-event-id': String(start) }, signal: resumed.signal });
    const text = again.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    try {
      while (!seen.includes(String(decodeJwt(later.access_token).jti))) {
        const { value, done } = await text.read();
        if (done) break;
        seen += value;
      }
    } finally {
      resumed.abort();
    }
    const ids = [...seen.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids.length).toBe(2);
    expect(ids.every((id) => id > start)).toBe(true);
    expect(seen).toMatch(/^retry: 2000$/m);
  });

  it('on shutdown an open stream is ended with a retry hint, so the API reconnects to another instance', async () => {
    const res = await fetch(feedUrl(), { headers: { authorization: apiAuth(), accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    while (!seen.includes(': connected')) seen += (await reader.read()).value ?? '';
    expect(server.app.services.streams.size).toBeGreaterThanOrEqual(1);
    server.app.services.streams.closeAll(1500);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    expect(seen.endsWith('retry: 1500\n\n')).toBe(true);
    expect(server.app.services.streams.size).toBe(0);
  });

  it('forgets entries once every token they concern has expired', async () => {
    const tokens = await freshTokens();
    await server.revoke(tokens.access_token);
    const { jti } = decodeJwt(tokens.access_token);
    const count = () => server.database.db.selectFrom('token_revocations').select('id').where('jti', '=', jti!).execute();
    expect(await count()).toHaveLength(1);
    const before = skewMs;
    skewMs += 3_601_000;
    try {
      expect(await server.app.services.revocations.purgeExpired()).toBeGreaterThanOrEqual(1);
      expect(await count()).toHaveLength(0);
    } finally {
      skewMs = before;
    }
  });
});
