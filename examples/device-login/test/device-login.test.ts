/**
 * The example's device login against a real authorization server (@gatehouse/auth/testing):
 * it shows the code, polls at the server's interval, adds 5 s after a slow_down, and ends with
 * tokens once the user approved at /activate; a denial ends it with `access_denied`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, form, request, startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { deviceLogin, DeviceLoginError, type DeviceLoginPrompt } from '../src/device-login.ts';

const CLIENT_ID = 'gatehouse-cli';

describe('device login example', () => {
  let server: TestAuthServer;

  beforeAll(async () => {
    server = await startTestAuthServer();
    await server.app.services.clients.create({ clientId: CLIENT_ID, name: 'Gatehouse CLI', redirectUris: [], public: true, firstParty: true, grantTypes: ['urn:ietf:params:oauth:grant-type:device_code'] });
  });
  afterAll(() => server.close());

  const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

  /** The user's browser: the code at /activate, then Approve (with password and TOTP) or Deny. */
  async function decide(userCode: string, decision: 'confirm' | 'abort') {
    const jar = new CookieJar();
    const page = await request(jar, `${server.issuer}/activate`);
    const confirm = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: field(page.text, 'xsrf'), user_code: userCode }) });
    const next = await request(jar, `${server.issuer}/activate`, { method: 'POST', ...form({ xsrf: field(confirm.text, 'xsrf'), user_code: userCode, [decision]: 'yes' }) });
    if (decision === 'abort') return;
    const user = await server.createUser();
    const uid = field(next.text, 'uid');
    await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
    const code = await server.app.services.totp.generate(user.totpSecret, Date.now());
    const done = await request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
    expect(done.text).toContain('Device connected');
  }

  it('shows the code, waits the interval, slows down when told, and gets tokens after the approval', async () => {
    const shown: DeviceLoginPrompt[] = [];
    const waits: number[] = [];
    const tokens = await deviceLogin({
      issuer: server.issuer,
      clientId: CLIENT_ID,
      scope: 'openid movies:read',
      show: (prompt) => void shown.push(prompt),
      // No real waiting: the second poll comes at once and gets slow_down; the user approves during the third wait.
      wait: async (seconds) => {
        waits.push(seconds);
        if (waits.length === 3) await decide(shown[0]!.userCode, 'confirm');
      },
    });
    expect(shown).toEqual([
      { verificationUri: `${server.issuer}/activate`, verificationUriComplete: `${server.issuer}/activate?user_code=${shown[0]!.userCode}`, userCode: expect.stringMatching(/^[B-Z]{4}-[B-Z]{4}$/), expiresIn: 600 },
    ]);
    expect(waits).toEqual([5, 5, 10]);
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'openid movies:read' });
    expect(tokens.access_token).toMatch(/^ey/);
  });

  it('a denial ends the login with access_denied', async () => {
    let userCode = '';
    const login = deviceLogin({
      issuer: server.issuer,
      clientId: CLIENT_ID,
      scope: 'openid',
      show: (prompt) => {
        userCode = prompt.userCode;
      },
      wait: async () => decide(userCode, 'abort'),
    });
    await expect(login).rejects.toThrow(new DeviceLoginError('access_denied', 'the sign-in was denied in the browser'));
    await expect(login).rejects.toMatchObject({ code: 'access_denied' });
  });
});
