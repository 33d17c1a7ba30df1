/**
 * One field set per audit event: `recovery.issued` and `device.removed` name where the change was
 * made in `via` (totp_enrollment, device_enrollment, devices_page). Before, the devices page wrote
 * `source` and the TOTP enrollment `via: 'totp-enrollment'`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../support/index.ts';
import { hashPassword } from '../../src/accounts/password.ts';
import { authorizeUrl, form, request, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { browser, captureLogger, enrollDevice } from '../support/push.ts';

describe('audit events name where a credential change was made', () => {
  let server: TestAuthServer;
  const clock = () => Date.now();
  const log = captureLogger();

  beforeAll(async () => {
    server = await startServer({ clock, env: { TRUST_PROXY: 'true' }, logger: log.logger });
  });
  afterAll(() => server.close());

  const audited = (event: string, accountId: string) =>
    log.audits(event).filter((line) => line.account_id === accountId).map(({ event: name, account_id, via, source }) => ({ event: name, account_id, via, source }));

  it('recovery codes issued by the TOTP enrollment: via totp_enrollment', async () => {
    const password = 'correct horse battery staple';
    const account = await server.app.services.accounts.create({
      username: `enrolling-${Date.now()}`,
      email: 'enrolling@example.com',
      name: 'Enrolling',
      groups: [],
      passwordHash: await hashPassword(password),
    });
    const jar = browser();
    const uid = uidOf((await request(jar, authorizeUrl(server))).text);
    const step = await request(jar, `${server.issuer}/login`, { method: 'POST', ...jsonBody({ uid, username: account.username, password }) });
    expect(step.status).toBe(200);
    const { enrollment } = step.json<{ enrollment: { secret: string } }>();
    const code = await server.app.services.totp.generate(enrollment.secret, clock());
    const verified = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ uid, code }) });
    expect(verified.json<{ recovery_codes: string[] }>().recovery_codes).toHaveLength(10);
    expect((await request(jar, `${server.issuer}/mfa/recovery-codes/saved`, { method: 'POST', ...form({ uid }) })).status).toBe(302);
    expect(audited('recovery.issued', account.id)).toEqual([{ event: 'recovery.issued', account_id: account.id, via: 'totp_enrollment', source: undefined }]);
  });

  it('recovery codes issued on the devices page, and a device removed there: via device_enrollment / devices_page', async () => {
    const user = await server.createUser();
    const accountId = (await server.app.services.accounts.findByUsername(user.username))!.id;
    const { jar, authenticator } = await enrollDevice(server, user, clock);
    expect((await request(jar, `${server.issuer}/authenticator/recovery-codes`, { method: 'POST', ...jsonBody({}) })).status).toBe(201);
    expect(audited('recovery.issued', accountId)).toEqual([
      { event: 'recovery.issued', account_id: accountId, via: 'device_enrollment', source: undefined },
      { event: 'recovery.issued', account_id: accountId, via: 'devices_page', source: undefined },
    ]);
    const removed = await request(jar, `${server.issuer}/authenticator/devices/remove`, { method: 'POST', ...jsonBody({ device_id: authenticator.deviceId }) });
    expect(removed.status).toBe(200);
    expect(audited('device.removed', accountId)).toEqual([{ event: 'device.removed', account_id: accountId, via: 'devices_page', source: undefined }]);
  });
});
