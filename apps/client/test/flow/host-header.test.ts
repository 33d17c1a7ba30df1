/**
 * Host-header safety: the relying party's absolute URLs (the authorization request's
 * redirect_uri, the end-session request's post_logout_redirect_uri, the callback's redirect) come
 * from CLIENT_URL and AUTH_ISSUER only. A browser that names another host — `Host`,
 * `X-Forwarded-Host`, `Forwarded`, or an absolute-form request target — on every hop of the
 * app (landing, callback, items, logout, signed-out, error pages) never sees that host in any
 * header or body, with TRUST_PROXY off and on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, form, request, startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { foreignHostVariants, rawRequest, type RawResponse } from '@gatehouse/http/testing';
import { hiddenField, nextCode, startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';

const FOREIGN = 'evil.example';
type Variant = ReturnType<typeof foreignHostVariants>[number];

let auth: TestAuthServer;
let api: StubApi;
beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
});
afterAll(async () => {
  await api?.close();
  await auth?.close();
});

describe.each([
  ['off', 'false'],
  ['on', 'true'],
])('with TRUST_PROXY %s', (_label, trustProxy) => {
  let app: ClientHarness;
  beforeAll(async () => {
    app = await startClient({ auth, apiUrl: api.url, env: { TRUST_PROXY: trustProxy } });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** One request to the app as `variant` says, with the jar's cookies; the jar keeps the answer's. */
  async function send(jar: CookieJar, variant: Variant, target: string, init: { method?: string; fields?: Record<string, string> } = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { ...variant.headers };
    const cookie = jar.header();
    if (cookie) headers.cookie = cookie;
    if (init.fields) headers['content-type'] = 'application/x-www-form-urlencoded';
    const r = await rawRequest(app.url, {
      method: init.method,
      target: variant.absoluteForm ? `http://${FOREIGN}${target}` : target,
      headers,
      body: init.fields ? new URLSearchParams(init.fields).toString() : undefined,
    });
    const setCookies = new Headers();
    for (const line of [r.headers['set-cookie'] ?? []].flat()) setCookies.append('set-cookie', line);
    jar.store(setCookies);
    expect(r.headerLines.filter((line) => line.includes(FOREIGN)), `${variant.name}: ${target}`).toEqual([]);
    expect(r.body.includes(FOREIGN), `${variant.name}: ${target}: ${r.body.slice(0, 400)}`).toBe(false);
    return r;
  }

  it.each(foreignHostVariants(FOREIGN))('sign-in, the landing page, an item, logout ($name)', async (variant) => {
    const user = await auth.createUser();
    const jar = new CookieJar();

    const start = await send(jar, variant, '/');
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.location as string);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${auth.issuer}/oauth2/v1/authorize`);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${app.url}/callback`);

    // The authorization server's hops (its own host-header test covers them).
    const page = await request(jar, authorize.href);
    const uid = hiddenField(page.text, 'uid');
    expect((await request(jar, `${auth.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) })).status).toBe(200);
    const verify = await request(jar, `${auth.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code: await nextCode(auth, user) }) });
    expect(verify.status).toBe(302);
    const callback = new URL(verify.location!);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${app.url}/callback`);

    const back = await send(jar, variant, `${callback.pathname}${callback.search}`);
    expect(back.status).toBe(302);
    expect(back.headers.location).toBe('/');
    const landing = await send(jar, variant, '/');
    expect(landing.status).toBe(200);
    const csrf = hiddenField(landing.body, '_csrf');

    const added = await send(jar, variant, '/items', { method: 'POST', fields: { _csrf: csrf, id: '7', value: 'Seven' } });
    expect(added.status).toBe(303);
    expect(added.headers.location).toBe('/');

    const logout = await send(jar, variant, '/logout', { method: 'POST', fields: { _csrf: csrf } });
    expect(logout.status).toBe(302);
    const endSession = new URL(logout.headers.location as string);
    expect(`${endSession.origin}${endSession.pathname}`).toBe(`${auth.issuer}/oauth2/v1/logout`);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${app.url}/signed-out`);
    expect((await send(jar, variant, '/signed-out')).status).toBe(200);
  });

  it.each(foreignHostVariants(FOREIGN))('error pages, a stale callback and health ($name)', async (variant) => {
    const jar = new CookieJar();
    expect((await send(jar, variant, '/callback?code=x&state=y')).status).toBe(400);
    expect((await send(jar, variant, '/callback?error=access_denied&state=y')).status).toBeGreaterThanOrEqual(400);
    expect((await send(jar, variant, '/nowhere')).status).toBe(404);
    expect((await send(jar, variant, '/logout', { method: 'POST', fields: {} })).status).toBeGreaterThanOrEqual(300);
    expect((await send(jar, variant, '/healthz')).status).toBe(200);
  });
});
