import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../support/index.ts';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';
import { normalizeEnrollmentCode } from '../../src/devices/signed-request.ts';
import { browser, captureLogger, CONTEXT, enrollDevice, newKeyPair, publicJwk, signWith, SoftwareAuthenticator } from '../support/push.ts';

describe('enrolling a web authenticator', () => {
  let server: TestAuthServer;
  const log = captureLogger();
  const clock = () => Date.now();

  beforeAll(async () => {
    server = await startServer({ clock, env: { TRUST_PROXY: 'true' }, logger: log.logger });
  });
  afterAll(() => server.close());

  async function signedIn() {
    const user = await server.createUser();
    const jar = browser();
    const done = await signIn(server, jar, user, authorizeUrl(server), clock());
    expect(done.status).toBe(302);
    return { user, jar };
  }

  it('a signed-in user gets a one-time code (and 10 recovery codes once), the device registers its key, and the page lists it', async () => {
    const { user, jar } = await signedIn();
    const empty = await request(jar, `${server.issuer}/account`, { headers: { accept: 'application/json' } });
    expect(empty.status).toBe(200);
    expect(empty.json()).toMatchObject({ username: user.username, devices: [], recovery_codes_remaining: 0, passkeys: [] });

    const enrollment = await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...jsonBody({}) });
    expect(enrollment.status).toBe(201);
    const body = enrollment.json<{ enrollment_code: string; enrollment_url: string; expires_at: string; recovery_codes: string[] }>();
    expect(body.enrollment_url).toBe(`${server.issuer}/authenticator#enroll=${body.enrollment_code}`);
    expect(Date.parse(body.expires_at) - clock()).toBeGreaterThan(9 * 60_000);
    expect(body.recovery_codes).toHaveLength(10);

    const { res, authenticator } = await SoftwareAuthenticator.register(server, body.enrollment_code, '  <b>Phone</b> ', clock);
    expect(res.status).toBe(201);
    expect(res.json()).toEqual({ device_id: authenticator!.deviceId, name: '<b>Phone</b>', username: user.username });

    const again = await SoftwareAuthenticator.register(server, body.enrollment_code, 'Second', clock);
    expect(again.res.status).toBe(400);
    expect(again.res.json()).toEqual({
      error: 'invalid_enrollment_code',
      error_description: 'This enrollment code is unknown, used or expired. Create a new one on the devices page.',
    });

    const listed = await request(jar, `${server.issuer}/account`, { headers: { accept: 'application/json' } });
    expect(listed.json()).toMatchObject({ devices: [{ id: authenticator!.deviceId, name: '<b>Phone</b>', last_used_at: null }], recovery_codes_remaining: 10 });
    const page = await request(jar, `${server.issuer}/account/security`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text).toContain('&lt;b&gt;Phone&lt;/b&gt;');
    expect(page.text).not.toContain('<b>Phone</b>');

    const list = await authenticator!.list();
    expect(list.status).toBe(200);
    expect(list.json()).toEqual({ device: { id: authenticator!.deviceId, name: '<b>Phone</b>', username: user.username }, requests: [] });
    expect(log.audits('device.enrolled')).toEqual([expect.objectContaining({ device_id: authenticator!.deviceId })]);
    expect(log.raw.join('')).not.toContain(body.enrollment_code);

    // A second enrollment does not issue recovery codes again.
    const second = await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...jsonBody({}) });
    expect(second.json()).not.toHaveProperty('recovery_codes');
  });

  it('the HTML enrollment page shows a QR code of the link, the code and the recovery codes', async () => {
    const { jar } = await signedIn();
    const page = await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...form({}) });
    expect(page.status).toBe(201);
    expect(page.text).toContain('<svg');
    expect(page.text).toMatch(/id="enrollment-code">[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}</);
    expect(page.text.match(/<li><code>[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}<\/code><\/li>/g)).toHaveLength(10);
  });

  it('refuses the device actions without a session, and cross-site posts', async () => {
    const anonymous = await request(new CookieJar(), `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...jsonBody({}) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toEqual({
      error: 'login_required',
      error_description: 'You are not signed in to Gatehouse. Sign in to an application that uses Gatehouse, then open this page again.',
    });
    // The old page itself moved to the account page, which signs a browser in first.
    const moved = await request(new CookieJar(), `${server.issuer}/authenticator/devices`);
    expect(moved.status).toBe(301);
    expect(moved.location).toBe('/account/security');

    const { jar } = await signedIn();
    const crossSite = await request(jar, `${server.issuer}/authenticator/devices/enroll`, {
      method: 'POST',
      headers: { ...form({}).headers, origin: 'https://evil.example' },
      body: '',
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.text).toContain('Cross-site requests to this page are refused.');
    const post = (headers: Record<string, string>) =>
      request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', headers: { ...form({}).headers, ...headers }, body: '' });
    expect((await post({ 'sec-fetch-site': 'cross-site', origin: server.issuer })).status).toBe(403);
    expect((await post({ 'sec-fetch-site': 'same-site' })).status).toBe(403);
    // Our pages are no-referrer, so a browser posts our own form with Origin: null.
    expect((await post({ 'sec-fetch-site': 'same-origin', origin: 'null' })).status).toBe(201);
    expect((await post({ origin: 'null' })).status).toBe(201);
    expect((await post({ origin: server.issuer })).status).toBe(201);
  });

  it('refuses a registration signed by another key, a malformed key and a bad name', async () => {
    const { jar } = await signedIn();
    const { enrollment_code: code } = (await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...jsonBody({}) })).json<{ enrollment_code: string }>();
    const keys = await newKeyPair();
    const other = await newKeyPair();
    const register = (body: Record<string, unknown>) => request(new CookieJar(), `${server.issuer}/authenticator/api/register`, { method: 'POST', ...jsonBody(body) });
    const forged = await register({ code, name: 'Phone', public_key: await publicJwk(keys), signature: await signWith(other.privateKey, `${CONTEXT}.enroll.${code}`) });
    expect(forged.status).toBe(401);
    expect(forged.json()).toEqual({ error: 'invalid_signature', error_description: 'The enrollment is not signed by the submitted key.' });
    const badKey = await register({ code, name: 'Phone', public_key: { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43) }, signature: 'x' });
    expect(badKey.status).toBe(400);
    expect(badKey.json()).toEqual({ error: 'invalid_request', error_description: 'Field "public_key" must be an EC P-256 public JWK.' });
    const badName = await register({ code, name: '\u0007', public_key: await publicJwk(keys), signature: 'x' });
    expect(badName.status).toBe(400);
    const notJson = await request(new CookieJar(), `${server.issuer}/authenticator/api/register`, { method: 'POST', ...form({ code }) });
    expect(notJson.status).toBe(415);
    // The forged attempt did not burn the code.
    const ok = await register({ code, name: 'Phone', public_key: await publicJwk(keys), signature: await signWith(keys.privateKey, `${CONTEXT}.enroll.${normalizeEnrollmentCode(code)}`) });
    expect(ok.status).toBe(201);
    expect(log.audits('device.enrollment.refused').map((l) => l.reason)).toContain('forged_signature');
  });

  it('a user removes a device on the page; another user cannot remove it', async () => {
    const alice = await server.createUser();
    const { jar, authenticator } = await enrollDevice(server, alice, clock);
    const { jar: bobJar } = await signedIn();
    const foreign = await request(bobJar, `${server.issuer}/authenticator/devices/remove`, { method: 'POST', ...jsonBody({ device_id: authenticator.deviceId }) });
    expect(foreign.status).toBe(404);
    const removed = await request(jar, `${server.issuer}/authenticator/devices/remove`, { method: 'POST', ...form({ device_id: authenticator.deviceId }) });
    expect(removed.status).toBe(303);
    expect(removed.location).toBe('/account/security');
    const list = await authenticator.list();
    expect(list.status).toBe(401);
    expect(list.json()).toEqual({ error: 'invalid_signature', error_description: 'This device is not enrolled (it may have been removed).' });
  });

  it('serves the authenticator as same-origin files: page, script, service worker, manifest', async () => {
    const jar = new CookieJar();
    const page = await request(jar, `${server.issuer}/authenticator`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="module" src="/authenticator/app.js"></script>');
    expect(page.text).toContain('<link rel="manifest" href="/authenticator/manifest.webmanifest" crossorigin="use-credentials">');
    expect(page.text).not.toMatch(/<script>/);
    const script = await request(jar, `${server.issuer}/authenticator/app.js`);
    expect(script.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(script.text).toContain("generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false");
    const worker = await request(jar, `${server.issuer}/authenticator/sw.js`);
    expect(worker.headers.get('service-worker-allowed')).toBe('/authenticator');
    const manifest = await request(jar, `${server.issuer}/authenticator/manifest.webmanifest`);
    expect(manifest.headers.get('content-type')).toMatch(/^application\/manifest\+json/);
    expect(manifest.json()).toMatchObject({ start_url: '/authenticator', display: 'standalone' });
    const icon = await request(jar, `${server.issuer}/authenticator/icon.svg`);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
  });
});
