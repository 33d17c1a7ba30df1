import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, request, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { browser, captureLogger, enrollDevice, newKeyPair, passwordStep, poll, pushId, sendPush, type SoftwareAuthenticator, type Waiting } from '../support/push.ts';
import { PUSH_TTL_MS } from '../../src/push/push-challenge.ts';

const CHROME_ON_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('push: what the phone shows, the time left, a wrong number against a denial, and "this wasn\'t me"', () => {
  let server: TestAuthServer;
  let offset = 0;
  const clock = () => Date.now() + offset;
  const log = captureLogger();

  beforeAll(async () => {
    server = await startServer({ clock, env: { TRUST_PROXY: 'true' }, logger: log.logger });
  });
  afterAll(() => server.close());

  async function enrolledUser(): Promise<{ user: TestUser; authenticator: SoftwareAuthenticator }> {
    const user = await server.createUser();
    const { authenticator } = await enrollDevice(server, user, clock);
    return { user, authenticator };
  }
  async function waitingPush(user: TestUser, userAgent?: string) {
    const jar = browser();
    if (userAgent) jar.defaultHeaders['user-agent'] = userAgent;
    const { uid } = await passwordStep(server, user, jar);
    const res = await sendPush(server, jar);
    expect(res.status).toBe(200);
    const waiting = res.json<Waiting>();
    return { jar, uid, waiting, id: pushId(waiting) };
  }
  const wrongNumber = async (authenticator: SoftwareAuthenticator, waiting: Waiting) =>
    (await authenticator.list()).json<{ requests: { choices: number[] }[] }>().requests[0]!.choices.find((n) => n !== waiting.number)!;

  it('the phone gets the browser and system as a label, and the seconds left', async () => {
    const { user, authenticator } = await enrolledUser();
    const { id } = await waitingPush(user, CHROME_ON_LINUX);
    offset += 15_000;
    try {
      const [pending] = (await authenticator.list()).json<{ requests: Record<string, unknown>[] }>().requests;
      expect(pending).toMatchObject({ id, browser: 'Chrome on Linux', expires_in: 45 });
      // Said in the language of the authenticator's request (its page's), like the account page's sessions.
      const german = await request(browser(), `${server.issuer}/authenticator/api/requests?${await authenticator.signedQuery()}`, { headers: { accept: 'application/json', 'accept-language': 'de' } });
      expect(german.json<{ requests: Record<string, unknown>[] }>().requests[0]).toMatchObject({ id, browser: 'Chrome unter Linux' });
    } finally {
      offset -= 15_000;
    }
    const page = await request(browser(), `${server.issuer}/authenticator`);
    expect(page.text).toContain('id="not-me-button"');
    const script = await request(browser(), `${server.issuer}/authenticator/app.js`);
    expect(script.text).toContain("[say('browser'), r.browser || say('unknownBrowser'), 'browser']");
    expect(script.text).not.toContain('r.user_agent');
  });

  it('the waiting page counts down from the seconds left, and says "about a minute" without script', async () => {
    const { user } = await enrolledUser();
    const { jar, uid } = await passwordStep(server, user);
    const res = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, method: 'push' }) });
    const page = res.status === 303 ? await request(jar, new URL(res.location!, server.issuer).href) : res;
    expect(page.status).toBe(200);
    expect(page.text).toContain(
      '<p class="muted countdown" id="push-expiry" data-countdown="60" data-countdown-lead="The request expires in" data-countdown-expired="The request has expired. Send a new push or use a code instead.">The request expires in about 1 minute.</p>',
    );
    expect(page.text).toContain('<script src="/static/countdown.js" defer></script>');
    // The seconds left, not an absolute time: 50 s later the page says 10.
    offset += 50_000;
    try {
      const later = await request(jar, `${server.issuer}${/data-poll-url="([^"]+)"/.exec(page.text)![1]}`, { headers: { accept: 'text/html' } });
      expect(later.text).toContain('data-countdown="10"');
      expect(later.text).toContain('The request expires in less than a minute.');
    } finally {
      offset -= 50_000;
    }
    const script = await request(jar, `${server.issuer}/static/countdown.js`);
    expect(script.status).toBe(200);
    expect(script.text).toContain("item.element.textContent = left > 0 ? `${item.lead} ${clock(left)}.` : item.expired;");
  });

  it('a wrong number: its own code and message on the sign-in page (JSON and HTML), apart from a denial', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, waiting, id } = await waitingPush(user);
    const wrong = await wrongNumber(authenticator, waiting);
    expect((await authenticator.answer(id, 'approve', wrong)).status).toBe(400);
    const json = await poll(server, jar, waiting);
    expect(json.status).toBe(401);
    expect(json.json()).toEqual({
      error: 'push_number_mismatch',
      error_description: `The number picked on your authenticator was not ${waiting.number}, the one shown here, so the sign-in was refused. Send a new push and pick the number this page shows, or use a code instead.`,
      state: 'REJECTED',
      status: 'mfa_required',
      next: '/mfa/verify',
      methods: expect.arrayContaining(['totp', 'push']),
    });
    const html = await poll(server, jar, waiting, true);
    expect(html.status).toBe(401);
    expect(html.text).toContain(`The number picked on your authenticator was not ${waiting.number}, the one shown here, so the sign-in was refused.`);
    expect(html.text).toContain('<code>push_number_mismatch</code>');
    expect(html.text).not.toContain('The sign-in was denied on your authenticator.');
    expect(log.audits('push.answer.refused')).toContainEqual(expect.objectContaining({ reason: 'number_mismatch', push_id: id }));
    expect(log.audits('push.denied').filter((l) => l.push_id === id)).toEqual([]);

    const denied = await waitingPush(user);
    expect((await authenticator.answer(denied.id, 'deny', '')).json()).toEqual({ state: 'REJECTED' });
    const deniedPage = await poll(server, denied.jar, denied.waiting, true);
    expect(deniedPage.text).toContain('The sign-in was denied on your authenticator.');
    expect(deniedPage.text).toContain('<code>push_rejected</code>');
    expect(log.audits('push.denied')).toContainEqual(expect.objectContaining({ push_id: denied.id }));
  });

  it('"this wasn\'t me" after a denial: recorded once, audited, and answered with where to change the password', async () => {
    const { user, authenticator } = await enrolledUser();
    const { id } = await waitingPush(user);
    const early = await authenticator.report(id);
    expect(early.status).toBe(409);
    expect(early.json()).toEqual({ error: 'push_not_refused', error_description: 'Only a sign-in this device denied can be reported.' });
    expect((await authenticator.answer(id, 'deny', '')).status).toBe(200);

    const forged = await authenticator.report(id, (await newKeyPair()).privateKey);
    expect(forged.status).toBe(401);
    expect(forged.json()).toEqual({ error: 'invalid_signature', error_description: 'The report is not signed by an enrolled device.' });
    const other = await enrolledUser();
    const foreign = await other.authenticator.report(id);
    expect(foreign.status).toBe(403);
    expect(foreign.json()).toMatchObject({ error: 'device_not_allowed' });

    const reported = await authenticator.report(id);
    expect(reported.status).toBe(200);
    expect(reported.json()).toEqual({
      reported: true,
      password_change_url: `${server.issuer}/account/security#password`,
      password_reset_url: `${server.issuer}/account/forgot-password`,
    });
    expect(log.audits('push.reported')).toEqual([expect.objectContaining({ account_id: expect.any(String), push_id: id, device_id: authenticator.deviceId, refusal: 'denied' })]);
    // Again: the same answer, nothing recorded twice.
    expect((await authenticator.report(id)).status).toBe(200);
    expect(log.audits('push.reported').filter((l) => l.push_id === id)).toHaveLength(1);
    expect(log.audits('push.report.refused').filter((l) => l.push_id === id).map((l) => l.reason)).toEqual(['not_refused', 'forged_signature', 'foreign_device']);
    // The password change it leads to is a real page.
    expect((await request(browser(), `${server.issuer}/account/forgot-password`)).status).toBe(200);
  });

  it('"this wasn\'t me" after a wrong number is recorded with that refusal; an expired push cannot be reported', async () => {
    const { user, authenticator } = await enrolledUser();
    const { waiting, id } = await waitingPush(user);
    await authenticator.answer(id, 'approve', await wrongNumber(authenticator, waiting));
    expect((await authenticator.report(id)).status).toBe(200);
    expect(log.audits('push.reported')).toContainEqual(expect.objectContaining({ push_id: id, refusal: 'number_mismatch' }));

    const late = await waitingPush(user);
    offset += PUSH_TTL_MS;
    try {
      expect((await authenticator.report(late.id)).status).toBe(409);
    } finally {
      offset -= PUSH_TTL_MS;
    }
  });
});
