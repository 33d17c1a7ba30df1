import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../support/index.ts';
import { PUSH_RATE_MAX, PUSH_TTL_MS } from '../../src/push/push-challenge.ts';
import { codeFrom, decodeJwt, exchange, form, request, startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { captureLogger, enrollDevice, readEvents, newKeyPair, passwordStep, poll, pushId, sendPush, type SoftwareAuthenticator, type Waiting } from '../support/push.ts';

describe('push approval with number matching', () => {
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

  async function waitingPush(user: TestUser) {
    const { jar, uid } = await passwordStep(server, user);
    const res = await sendPush(server, jar);
    expect(res.status).toBe(200);
    const waiting = res.json<Waiting>();
    return { jar, uid, waiting, id: pushId(waiting) };
  }

  it('approve with the right number: the poll answers 302 with code and state plus the SSO cookie; amr shows the push', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, uid } = await passwordStep(server, user);
    const offered = await request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ uid, username: user.username, password: user.password }) });
    expect(offered.json()).toEqual({ status: 'mfa_required', next: '/mfa/verify', methods: ['totp', 'push', 'recovery'] });

    const started = await sendPush(server, jar);
    expect(started.status).toBe(200);
    const waiting = started.json<Waiting>();
    expect(waiting).toEqual({ status: 'push_waiting', state: 'PENDING', number: expect.any(Number), poll: expect.stringMatching(/^\/mfa\/push\/[\w-]+$/), expires_in: 60, methods: ['totp', 'push', 'recovery'] });
    expect(waiting.number).toBeGreaterThanOrEqual(10);
    expect(waiting.number).toBeLessThanOrEqual(99);
    const id = pushId(waiting);

    const listed = await authenticator.list();
    const [pending, ...others] = listed.json<{ requests: Record<string, unknown>[] }>().requests;
    expect(others).toEqual([]);
    expect(pending).toEqual({
      id,
      client_name: 'Test App',
      ip: jar.defaultHeaders['x-forwarded-for'],
      user_agent: 'Mozilla/5.0 (Test) Browser/1.0',
      browser: 'Unknown browser',
      created_at: expect.any(String),
      expires_at: expect.any(String),
      expires_in: 60,
      choices: expect.arrayContaining([waiting.number]),
    });
    expect(pending!.choices).toHaveLength(3);
    expect(new Set(pending!.choices as number[]).size).toBe(3);
    expect(JSON.stringify(pending)).not.toContain('"number"');

    const still = await poll(server, jar, waiting);
    expect(still.status).toBe(200);
    expect(still.json()).toMatchObject({ status: 'push_waiting', state: 'PENDING', number: waiting.number });
    const status = await request(jar, `${server.issuer}${waiting.poll}/status`, { headers: { accept: 'application/json' } });
    expect(status.json()).toEqual({ state: 'PENDING', expires_in: 60 });

    const answer = await authenticator.answer(id, 'approve', waiting.number);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ state: 'APPROVED' });
    expect((await request(jar, `${server.issuer}${waiting.poll}/status`, { headers: { accept: 'application/json' } })).json()).toMatchObject({ state: 'APPROVED' });

    const done = await request(jar, `${server.issuer}${waiting.poll}`);
    expect(done.status).toBe(302);
    const location = new URL(done.location!);
    expect(`${location.origin}${location.pathname}`).toBe(server.testClient.redirectUri);
    expect(location.searchParams.get('state')).toMatch(/^[0-9a-f]{12}$/);
    expect(jar.cookies.has('gh_auth_session')).toBe(true);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(tokens.status).toBe(200);
    expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ amr: ['pwd', 'swk', 'user'] });
    expect(log.audits('push.approved')).toContainEqual(expect.objectContaining({ push_id: id, device_id: authenticator.deviceId }));
    expect(log.audits('login.mfa.success')).toContainEqual(expect.objectContaining({ method: 'push', push_id: id }));
  });

  it('the HTML page shows the number and its same-origin poller; the browser completes with a 302', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, uid, page } = await passwordStep(server, user);
    expect(page.text).toContain('Send a push to my authenticator');
    expect(page.text).toContain('Use a recovery code');
    const waitingPage = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, method: 'push' }) });
    expect(waitingPage.status).toBe(200);
    const number = /id="push-number"[^>]*>(\d{2})</.exec(waitingPage.text)?.[1];
    expect(number).toMatch(/^\d{2}$/);
    expect(waitingPage.text).toContain('<script src="/static/push-wait.js" defer></script>');
    const pollUrl = /data-poll-url="([^"]+)"/.exec(waitingPage.text)![1]!;
    expect(waitingPage.text).toContain(`data-status-url="${pollUrl}/status"`);
    const script = await request(jar, `${server.issuer}/static/push-wait.js`);
    expect(script.text).toContain('window.location.assign(pollUrl)');

    expect((await authenticator.answer(pollUrl.split('/').pop()!, 'approve', number!)).status).toBe(200);
    const done = await request(jar, `${server.issuer}${pollUrl}`);
    expect(done.status).toBe(302);
    expect(done.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
    expect(jar.cookies.has('gh_auth_session')).toBe(true);
  });

  it('after approval, posting method=push again completes the login too (docs/spec.md §4.2: POST /mfa/verify with a push approval → 302)', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, uid, waiting, id } = await waitingPush(user);
    expect((await authenticator.answer(id, 'approve', waiting.number)).status).toBe(200);
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, method: 'push' }) });
    expect(done.status).toBe(302);
    expect(done.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=[\w-]+&state=/);
    expect(jar.cookies.has('gh_auth_session')).toBe(true);
    const tokens = await exchange(server, codeFrom(done.location));
    expect(decodeJwt(tokens.body.id_token as string)).toMatchObject({ amr: ['pwd', 'swk', 'user'] });
  });

  it('deny: the poll answers REJECTED and offers the other factors; denials do not count toward the lockout', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, waiting, id, uid } = await waitingPush(user);
    const denied = await authenticator.answer(id, 'deny', '');
    expect(denied.json()).toEqual({ state: 'REJECTED' });
    const json = await poll(server, jar, waiting);
    expect(json.status).toBe(401);
    expect(json.json()).toEqual({
      error: 'push_rejected',
      error_description: 'The sign-in was denied on your authenticator. Send a new push or use a code instead.',
      state: 'REJECTED',
      status: 'mfa_required',
      next: '/mfa/verify',
      methods: ['totp', 'push', 'recovery'],
    });
    const html = await poll(server, jar, waiting, true);
    expect(html.status).toBe(401);
    expect(html.text).toContain('The sign-in was denied on your authenticator.');
    expect(html.text).toContain('name="method" value="totp"');
    expect(html.text).toContain('Send a push to my authenticator');
    expect(log.audits('push.denied')).toContainEqual(expect.objectContaining({ push_id: id }));

    // Four more denied pushes on this login (5 in all, the lockout threshold): TOTP still works.
    for (let i = 0; i < 4; i += 1) {
      const next = (await sendPush(server, jar)).json<Waiting>();
      expect((await authenticator.answer(pushId(next), 'deny', '')).status).toBe(200);
    }
    // The next TOTP step: the enrollment's sign-in used the current one.
    const code = await server.app.services.totp.generate(user.totpSecret, clock() + 30_000);
    const ok = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(ok.status).toBe(302);
  });

  it('expiry: after about 60 s the poll answers TIMEOUT and a late answer is refused', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, waiting, id } = await waitingPush(user);
    offset += PUSH_TTL_MS;
    try {
      const late = await authenticator.answer(id, 'approve', waiting.number);
      expect(late.status).toBe(410);
      expect(late.json()).toEqual({ error: 'push_expired', error_description: 'This sign-in request has expired.' });
      const res = await poll(server, jar, waiting);
      expect(res.status).toBe(401);
      expect(res.json()).toMatchObject({ error: 'push_timeout', state: 'TIMEOUT', status: 'mfa_required' });
      expect((await authenticator.list()).json()).toMatchObject({ requests: [] });
      // A new push can be sent for the same login.
      const again = await sendPush(server, jar);
      expect(again.json<Waiting>().poll).not.toBe(waiting.poll);
    } finally {
      offset -= PUSH_TTL_MS;
    }
  });

  it('a wrong number is refused, audited and ends the push as REJECTED', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, waiting, id } = await waitingPush(user);
    const choices = (await authenticator.list()).json<{ requests: { choices: number[] }[] }>().requests[0]!.choices;
    const wrong = choices.find((n) => n !== waiting.number)!;
    const res = await authenticator.answer(id, 'approve', wrong);
    expect(res.status).toBe(400);
    expect(res.json()).toEqual({
      error: 'number_mismatch',
      error_description: `You picked ${wrong}, but the sign-in page showed another number, so the sign-in was refused. If you are signing in, send a new push and pick the number shown there.`,
    });
    const right = await authenticator.answer(id, 'approve', waiting.number);
    expect(right.status).toBe(409);
    expect((await poll(server, jar, waiting)).json()).toMatchObject({ error: 'push_number_mismatch', state: 'REJECTED' });
    expect(log.audits('push.answer.refused')).toContainEqual(expect.objectContaining({ reason: 'number_mismatch', push_id: id }));
  });

  it('a forged signature is refused and audited; the push stays PENDING', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, waiting, id } = await waitingPush(user);
    const intruder = await newKeyPair();
    const forged = await authenticator.send(id, await authenticator.answerBody(id, 'approve', String(waiting.number), intruder.privateKey));
    expect(forged.status).toBe(401);
    expect(forged.json()).toEqual({ error: 'invalid_signature', error_description: 'The answer is not signed by an enrolled device.' });
    // A signature of another decision or number does not carry over.
    const body = await authenticator.answerBody(id, 'deny', '');
    const swapped = await authenticator.send(id, { ...body, decision: 'approve', number: String(waiting.number) });
    expect(swapped.status).toBe(401);
    const garbage = await authenticator.send(id, { ...body, signature: 'not-a-signature' });
    expect(garbage.status).toBe(401);
    expect((await poll(server, jar, waiting)).json()).toMatchObject({ state: 'PENDING' });
    expect(log.audits('push.answer.refused').filter((l) => l.push_id === id).map((l) => l.reason)).toEqual(['forged_signature', 'forged_signature', 'forged_signature']);
    expect(log.raw.join('')).not.toContain(body.signature);
  });

  it('a device of another user cannot see or answer the push', async () => {
    const alice = await enrolledUser();
    const mallory = await enrolledUser();
    const { jar, waiting, id } = await waitingPush(alice.user);
    expect((await mallory.authenticator.list()).json()).toMatchObject({ requests: [] });
    const res = await mallory.authenticator.answer(id, 'approve', waiting.number);
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ error: 'device_not_allowed', error_description: 'This device is not enrolled for the account of this sign-in.' });
    expect((await poll(server, jar, waiting)).json()).toMatchObject({ state: 'PENDING' });
    expect(log.audits('push.answer.refused')).toContainEqual(expect.objectContaining({ reason: 'foreign_device', push_id: id, device_id: mallory.authenticator.deviceId }));
  });

  it('a replayed approval changes nothing; a replayed listing request is refused', async () => {
    const { user, authenticator } = await enrolledUser();
    const { jar, waiting, id } = await waitingPush(user);
    const body = await authenticator.answerBody(id, 'approve', String(waiting.number));
    expect((await authenticator.send(id, body)).status).toBe(200);
    const replay = await authenticator.send(id, body);
    expect(replay.status).toBe(409);
    expect(replay.json()).toEqual({ error: 'push_already_decided', error_description: 'This sign-in request was already answered.' });
    expect(log.audits('push.answer.refused')).toContainEqual(expect.objectContaining({ reason: 'already_decided', push_id: id }));
    // The approval finishes one login: the first poll completes, the interaction is then gone.
    expect((await poll(server, jar, waiting)).status).toBe(302);
    const after = await poll(server, jar, waiting);
    expect(after.status).toBe(400);

    const query = await authenticator.signedQuery();
    expect((await authenticator.list(query)).status).toBe(200);
    const replayed = await authenticator.list(query);
    expect(replayed.status).toBe(401);
    expect(replayed.json()).toEqual({ error: 'request_replayed', error_description: 'This signed request was already used.' });
    const stale = await authenticator.list(await authenticator.signedQuery({ ts: String(clock() - 120_000) }));
    expect(stale.status).toBe(401);
    expect(stale.json()).toMatchObject({ error: 'invalid_signature' });
    const forged = await authenticator.list(await authenticator.signedQuery({ key: (await newKeyPair()).privateKey }));
    expect(forged.status).toBe(401);
    const missing = await request(jar, `${server.issuer}/authenticator/api/requests?device_id=x`, { headers: { accept: 'application/json' } });
    expect(missing.status).toBe(400);
    expect(log.audits('device.request.refused').map((l) => l.reason)).toEqual(expect.arrayContaining(['replayed_nonce', 'stale_timestamp', 'forged_signature']));
  });

  it('one live push per login, and at most PUSH_RATE_MAX pushes per user in the window', async () => {
    const { user } = await enrolledUser();
    const first = await waitingPush(user);
    const same = (await sendPush(server, first.jar)).json<Waiting>();
    expect(same).toMatchObject({ poll: first.waiting.poll, number: first.waiting.number });
    for (let i = 1; i < PUSH_RATE_MAX; i += 1) await waitingPush(user);
    const { jar } = await passwordStep(server, user);
    const limited = await sendPush(server, jar);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('600');
    expect(limited.json()).toMatchObject({ error: 'too_many_pushes', error_description: 'Too many push requests. Wait a few minutes, or use a code instead.' });
    // The live push of a login is still shown when the limit is reached.
    expect((await sendPush(server, first.jar)).json<Waiting>().poll).toBe(first.waiting.poll);
    expect(log.audits('push.rate_limited')).toHaveLength(1);
    // The limit does not touch the other factors.
    const code = await server.app.services.totp.generate(user.totpSecret, clock() + 30_000);
    expect((await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ code }) })).status).toBe(302);
  });

  it('push needs an enrolled device, and a push id of another login is not found', async () => {
    const plain = await server.createUser();
    const { jar } = await passwordStep(server, plain);
    const res = await sendPush(server, jar);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ error: 'push_unavailable', methods: ['totp'] });

    const { user } = await enrolledUser();
    const { waiting } = await waitingPush(user);
    const other = await passwordStep(server, user);
    const foreign = await poll(server, other.jar, waiting);
    expect(foreign.status).toBe(404);
    expect(foreign.json()).toEqual({ error: 'not_found', error_description: 'No such push request for this sign-in.' });
  });

  it('the authenticator receives pending requests as Server-Sent Events', async () => {
    const { user, authenticator } = await enrolledUser();
    const controller = new AbortController();
    const response = await fetch(`${server.issuer}/authenticator/api/events?${await authenticator.signedQuery()}`, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const nextEvent = readEvents(response);
    try {
      expect(await nextEvent()).toEqual({ event: 'requests', data: { device: expect.objectContaining({ id: authenticator.deviceId }), requests: [] } });
      const { waiting, id } = await waitingPush(user);
      const pushed = await nextEvent();
      expect(pushed.data.requests).toEqual([expect.objectContaining({ id, choices: expect.arrayContaining([waiting.number]) })]);
      await authenticator.answer(id, 'deny', '');
      expect((await nextEvent()).data.requests).toEqual([]);
    } finally {
      controller.abort();
    }
  });

  it('removing the device ends its event stream with `revoked`', async () => {
    const user = await server.createUser();
    const { jar, authenticator } = await enrollDevice(server, user, clock);
    const controller = new AbortController();
    const response = await fetch(`${server.issuer}/authenticator/api/events?${await authenticator.signedQuery()}`, { signal: controller.signal });
    const nextEvent = readEvents(response);
    try {
      expect((await nextEvent()).event).toBe('requests');
      const removed = await request(jar, `${server.issuer}/authenticator/devices/remove`, { method: 'POST', ...jsonBody({ device_id: authenticator.deviceId }) });
      expect(removed.json()).toEqual({ removed: authenticator.deviceId });
      expect(await nextEvent()).toEqual({ event: 'revoked', data: {} });
      await expect(nextEvent()).rejects.toThrow('stream ended');
      expect(log.audits('device.removed')).toContainEqual(expect.objectContaining({ device_id: authenticator.deviceId }));
    } finally {
      controller.abort();
    }
  });
});
