/**
 * Host-header safety: discovery and every absolute URL the authorization server
 * writes come from AUTH_ISSUER. A client that names another host — `Host`, `X-Forwarded-Host`,
 * `Forwarded`, or an absolute-form request target — on every hop of a sign-in, a token exchange,
 * the logout pages, the device enrollment and the error pages never sees that host in any header
 * or body, with TRUST_PROXY off and on: the configured issuer always wins (TRUST_PROXY still
 * decides Secure cookies and the client address, proxy.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { foreignHostVariants, rawRequest, type RawResponse } from '@gatehouse/http/testing';
import { CookieJar, decodeJwt, startServer, uidOf, basic, type TestAuthServer } from '../support/flow.ts';

const FOREIGN = 'evil.example';
type Variant = ReturnType<typeof foreignHostVariants>[number];

/** The checks every answer passes: no header line and no body byte names the foreign host. */
function expectClean(r: RawResponse, label: string): void {
  expect(r.headerLines.filter((line) => line.includes(FOREIGN)), label).toEqual([]);
  expect(r.body.includes(FOREIGN), `${label}: ${r.body.slice(0, 400)}`).toBe(false);
}

describe.each([
  ['off', 'false'],
  ['on', 'true'],
])('with TRUST_PROXY %s', (_label, trustProxy) => {
  let server: TestAuthServer;
  beforeAll(async () => {
    server = await startServer({ env: { TRUST_PROXY: trustProxy } });
  });
  afterAll(() => server.close());

  /** One request as `variant` says, with the jar's cookies; the jar keeps the answer's cookies. */
  async function send(jar: CookieJar, variant: Variant, target: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
    const headers: Record<string, string> = { ...init.headers, ...variant.headers };
    const cookie = jar.header();
    if (cookie) headers.cookie = cookie;
    const r = await rawRequest(server.issuer, {
      method: init.method,
      target: variant.absoluteForm ? `http://${FOREIGN}${target}` : target,
      headers,
      body: init.body,
    });
    const setCookies = new Headers();
    for (const line of [r.headers['set-cookie'] ?? []].flat()) setCookies.append('set-cookie', line);
    jar.store(setCookies);
    expectClean(r, `${variant.name}: ${init.method ?? 'GET'} ${target}`);
    return r;
  }
  const formBody = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  it.each(foreignHostVariants(FOREIGN))('discovery and the JWKS name the issuer only ($name)', async (variant) => {
    const jar = new CookieJar();
    const discovery = await send(jar, variant, AUTH_ROUTES.discovery);
    expect(discovery.status).toBe(200);
    const doc = JSON.parse(discovery.body) as Record<string, unknown>;
    const issuer = server.issuer;
    expect(doc).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}${AUTH_ROUTES.authorize}`,
      token_endpoint: `${issuer}${AUTH_ROUTES.token}`,
      jwks_uri: `${issuer}${AUTH_ROUTES.jwks}`,
      userinfo_endpoint: `${issuer}${AUTH_ROUTES.userinfo}`,
      introspection_endpoint: `${issuer}${AUTH_ROUTES.introspect}`,
      revocation_endpoint: `${issuer}${AUTH_ROUTES.revoke}`,
      end_session_endpoint: `${issuer}${AUTH_ROUTES.logout}`,
    });
    // Every URL in the document, not only the ones listed above.
    const urls = Object.values(doc).filter((v): v is string => typeof v === 'string' && /^https?:/.test(v));
    expect(urls.length).toBeGreaterThanOrEqual(8);
    for (const url of urls) expect(url === issuer || url.startsWith(`${issuer}/`), url).toBe(true);
    const jwks = await send(jar, variant, AUTH_ROUTES.jwks);
    expect(jwks.status).toBe(200);
  });

  it.each(foreignHostVariants(FOREIGN))('a whole sign-in, token exchange, device enrollment and logout ($name)', async (variant) => {
    const user = await server.createUser();
    const client = server.testClient;
    const jar = new CookieJar();
    const query = new URLSearchParams({ response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUri, scope: 'openid profile', state: 's1', nonce: 'n1' });

    // The authorize hop is where oidc-provider records the URL it resumes at after the last factor.
    const page = await send(jar, variant, `${AUTH_ROUTES.authorize}?${query}`);
    expect(page.status).toBe(200);
    const uid = uidOf(page.body);
    const password = await send(jar, variant, AUTH_ROUTES.login, formBody({ uid, username: user.username, password: user.password }));
    expect(password.status).toBe(200);
    const code = await server.app.services.totp.generate(user.totpSecret, Date.now());
    const done = await send(jar, variant, AUTH_ROUTES.mfaVerify, formBody({ uid, code }));
    expect(done.status).toBe(302);
    const back = new URL(done.headers.location as string);
    expect(`${back.origin}${back.pathname}`).toBe(client.redirectUri);
    expect(back.searchParams.get('iss')).toBe(server.issuer);

    const token = await send(new CookieJar(), variant, AUTH_ROUTES.token, {
      method: 'POST',
      headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: client.redirectUri }).toString(),
    });
    expect(token.status).toBe(200);
    const tokens = JSON.parse(token.body) as { id_token: string; access_token: string };
    expect(decodeJwt(tokens.id_token).iss).toBe(server.issuer);
    expect(decodeJwt(tokens.access_token).iss).toBe(server.issuer);

    const userinfo = await send(new CookieJar(), variant, AUTH_ROUTES.userinfo);
    expect(userinfo.status).toBe(401);

    const enrollment = await send(jar, variant, '/authenticator/devices/enroll', { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: '{}' });
    expect(enrollment.status).toBe(201);
    const enrolled = JSON.parse(enrollment.body) as { enrollment_code: string; enrollment_url: string };
    expect(enrolled.enrollment_url).toBe(`${server.issuer}/authenticator#enroll=${enrolled.enrollment_code}`);
    const enrollmentPage = await send(jar, variant, '/authenticator/devices/enroll', { method: 'POST', headers: { accept: 'text/html', 'content-type': 'application/json' }, body: '{}' });
    expect(enrollmentPage.status).toBe(201);
    expect(enrollmentPage.body).toContain(`${server.issuer}/authenticator#enroll=`);
    expect((await send(jar, variant, '/account')).status).toBe(200);

    const logout = await send(jar, variant, `${AUTH_ROUTES.logout}?${new URLSearchParams({ id_token_hint: tokens.id_token })}`);
    expect(logout.status).toBe(200);
    expect(logout.body).toContain(`action="${server.issuer}${AUTH_ROUTES.logout}/confirm"`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(logout.body)![1]!;
    const confirmed = await send(jar, variant, `${AUTH_ROUTES.logout}/confirm`, formBody({ xsrf, logout: 'yes' }));
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.location).toBe(`${server.issuer}${AUTH_ROUTES.logout}/success`);
    expect((await send(jar, variant, `${AUTH_ROUTES.logout}/success`)).status).toBe(200);
  });

  it.each(foreignHostVariants(FOREIGN))('error pages and answers of other endpoints ($name)', async (variant) => {
    const jar = new CookieJar();
    const unknownClient = await send(jar, variant, `${AUTH_ROUTES.authorize}?response_type=code&client_id=nobody&scope=openid`);
    expect(unknownClient.status).toBe(400);
    expect((await send(jar, variant, '/nowhere')).status).toBe(404);
    expect((await send(jar, variant, '/nowhere', { headers: { accept: 'application/json' } })).status).toBe(404);
    expect((await send(jar, variant, AUTH_ROUTES.login, formBody({ uid: 'no-such-interaction', username: 'x', password: 'y' }))).status).toBeGreaterThanOrEqual(400);
    expect((await send(jar, variant, AUTH_ROUTES.token, formBody({ grant_type: 'client_credentials' }))).status).toBe(400);
    expect((await send(jar, variant, '/healthz')).status).toBe(200);
    expect((await send(jar, variant, '/readyz')).status).toBe(200);
  });
});
