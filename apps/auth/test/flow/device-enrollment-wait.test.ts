import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../support/index.ts';
import { ENROLLMENT_TTL_MS } from '../../src/devices/enrollment-store.ts';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, type TestAuthServer } from '../support/flow.ts';
import { browser, captureLogger, SoftwareAuthenticator } from '../support/push.ts';

describe('the short enrollment code and the "Add a device" page that waits for the device', () => {
  let server: TestAuthServer;
  const log = captureLogger();
  let offset = 0;
  const clock = () => Date.now() + offset;

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
  const newCode = async (jar: CookieJar) =>
    (await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...jsonBody({}) })).json<{ enrollment_code: string; enrollment_url: string }>();
  const status = (jar: CookieJar) => request(jar, `${server.issuer}/authenticator/devices/enroll/status`, { headers: { accept: 'application/json' } });

  it('the code is short and grouped, and is accepted typed in lower case, with spaces or without dashes', async () => {
    const { user, jar } = await signedIn();
    const { enrollment_code: code, enrollment_url: url } = await newCode(jar);
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(url).toBe(`${server.issuer}/authenticator#enroll=${code}`);
    const typed = ` ${code.toLowerCase().replace('-', ' ')} `;
    const { res } = await SoftwareAuthenticator.register(server, typed, 'Phone', clock);
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ username: user.username, name: 'Phone' });

    const second = await newCode(jar);
    const undashed = await SoftwareAuthenticator.register(server, second.enrollment_code.replace(/-/g, '').toLowerCase(), 'Tablet', clock);
    expect(undashed.res.status).toBe(201);
  });

  it('wrong codes count against the client IP: the eleventh try within the hour is 429, even with a right code; another IP goes on', async () => {
    const { jar } = await signedIn();
    const { enrollment_code: code } = await newCode(jar);
    const ip = '192.0.2.77';
    const from = async (address: string, typed: string) => {
      const keys = await SoftwareAuthenticator.register(server, typed, 'Phone', clock, { 'x-forwarded-for': address });
      return keys.res;
    };
    for (let i = 0; i < 10; i += 1) {
      const wrong = await from(ip, `ZZZZ-ZZZZ-ZZ${String(i).padStart(2, '0')}`);
      expect(wrong.status).toBe(400);
      expect(wrong.json()).toEqual({
        error: 'invalid_enrollment_code',
        error_description: 'This enrollment code is unknown, used or expired. Create a new one on the devices page.',
      });
    }
    const limited = await from(ip, code);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3600');
    expect(limited.json()).toEqual({ error: 'too_many_attempts', error_description: 'Too many attempts. Try again in 60 minutes.' });
    expect(log.audits('device.enrollment.refused').filter((l) => l.ip === ip).map((l) => l.reason)).toEqual([...Array<string>(10).fill('invalid_code'), 'too_many_attempts']);
    // The refused try did not burn the code: from another address it still works.
    expect((await from('192.0.2.78', code)).status).toBe(201);
  });

  it('status: pending with the seconds left, then enrolled with the device name; the done page says so', async () => {
    const { jar } = await signedIn();
    // The first code came with the recovery codes; this page has none to save.
    await newCode(jar);
    const page = await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...form({}) });
    expect(page.status).toBe(201);
    expect(page.text).toContain('<script src="/static/countdown.js" defer></script>');
    expect(page.text).toContain('<script src="/static/enroll-wait.js" defer></script>');
    expect(page.text).toContain(
      '<p class="muted countdown" id="enrollment-expiry" data-countdown="600" data-countdown-lead="The code works once and expires in" data-countdown-expired="The code has expired. Create a new one on your account page.">The code works once and expires in about 10 minutes.</p>',
    );
    expect(page.text).toContain('data-status-url="/authenticator/devices/enroll/status" data-done-url="/authenticator/devices/enroll/done" data-auto="true"');
    expect(page.text).toContain('<form method="get" action="/authenticator/devices/enroll/done"><button type="submit" class="secondary" id="enroll-continue">Continue</button></form>');
    const code = /id="enrollment-code">([\w-]+)</.exec(page.text)![1]!;

    const waiting = await status(jar);
    expect(waiting.status).toBe(200);
    expect(waiting.headers.get('cache-control')).toBe('no-store');
    expect(waiting.json()).toEqual({ state: 'pending', expires_in: 600 });
    const early = await request(jar, `${server.issuer}/authenticator/devices/enroll/done`);
    expect(early.status).toBe(200);
    expect(early.text).toContain('<h1>Device not set up yet</h1>');
    expect(early.text).toContain('No device has used the code yet.');
    expect(early.text).toContain('id="add-device-again"');

    expect((await SoftwareAuthenticator.register(server, code, 'Kitchen tablet', clock)).res.status).toBe(201);
    expect((await status(jar)).json()).toEqual({ state: 'enrolled', device_name: 'Kitchen tablet' });
    const done = await request(jar, `${server.issuer}/authenticator/devices/enroll/done`);
    expect(done.status).toBe(200);
    expect(done.text).toContain('<h1>Device added</h1>');
    expect(done.text).toContain('<strong>Kitchen tablet</strong> is set up: it can now approve your sign-ins.');
    expect(done.text).toContain('<a href="/account/security#devices" id="back-to-account">Back to your account</a>');
  });

  it('status: an unused code expires; the done page offers a new code; the status needs the session', async () => {
    const { jar } = await signedIn();
    await newCode(jar);
    offset += ENROLLMENT_TTL_MS;
    try {
      expect((await status(jar)).json()).toEqual({ state: 'expired' });
      const done = await request(jar, `${server.issuer}/authenticator/devices/enroll/done`);
      expect(done.text).toContain('<h1>The code has expired</h1>');
      expect(done.text).toContain('<form method="post" action="/authenticator/devices/enroll"><button type="submit" id="add-device-again">Create a new code</button></form>');
    } finally {
      offset -= ENROLLMENT_TTL_MS;
    }
    const anonymous = await status(new CookieJar());
    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'login_required' });
  });

  it('the first device of an account without recovery codes: the page shows them and does not move on by itself', async () => {
    const { jar } = await signedIn();
    const page = await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...form({}) });
    expect(page.text).toContain('<h2>Your recovery codes</h2>');
    expect(page.text).toContain('data-auto="false"');
  });
});
