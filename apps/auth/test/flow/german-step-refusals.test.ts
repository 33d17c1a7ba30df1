/**
 * A refused sign-in step on a German page says what was refused in German: a tampered account
 * selection or consent form (an unknown or missing answer) and a wrong recovery code, after the
 * post/redirect/get (the refusal cookie keeps which refusal it was) and on the error page an API
 * client's form post gets. English pages keep the error's own message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CookieJar, form, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { passwordStep } from '../support/push.ts';

const THIRD = { clientId: 'third-app-de', clientSecret: 'third-app-de-secret-0123456789abcdef', redirectUri: 'http://127.0.0.1:8/cb' };
const alertOf = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
const errorCodeOf = (html: string) => /<p class="muted">[^<]*<code>([a-z_]+)<\/code><\/p>/.exec(html)?.[1];

describe('refused sign-in steps in German', () => {
  let server: TestAuthServer;
  const german = { 'accept-language': 'de-DE,de;q=0.9' };

  beforeAll(async () => {
    server = await startServer();
    await server.app.services.clients.create({ clientId: THIRD.clientId, name: 'Third App', redirectUris: [THIRD.redirectUri], clientSecret: THIRD.clientSecret, grantTypes: ['authorization_code'] });
  });
  afterAll(() => server.close());

  /** A form post: a browser's navigation (Sec-Fetch-Dest: document), or else an API client's. */
  const post = (fields: Record<string, string>, navigation = true) => {
    const body = form(fields);
    return { method: 'POST', headers: { ...body.headers, origin: server.issuer, accept: 'text/html', ...(navigation ? { 'sec-fetch-dest': 'document' } : {}) }, body: body.body };
  };
  const page = (jar: CookieJar, uid: string) => request(jar, `${server.issuer}/interaction/${uid}`, { headers: { accept: 'text/html' } });
  async function signedIn(headers: Record<string, string> = german) {
    const jar = new CookieJar(headers);
    expect((await signIn(server, jar, await server.createUser(), authorizeUrl(server))).status).toBe(302);
    return jar;
  }

  it.each([
    ['an unknown choice', { choice: 'both' }],
    ['no choice', {}],
  ])('the account selection with %s: 303, then the German refusal once with 400 and its code', async (_, fields: Record<string, string>) => {
    const jar = await signedIn();
    const uid = uidOf((await request(jar, authorizeUrl(server, { prompt: 'select_account' }))).text);
    const posted = await request(jar, `${server.issuer}/select-account`, post({ uid, ...fields }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(400);
    expect(shown.headers.get('content-language')).toBe('de');
    expect(alertOf(shown.text)).toBe('Wählen Sie „Weiter als …“ oder „Anderes Konto verwenden“.');
    expect(errorCodeOf(shown.text)).toBe('invalid_request');
    const reload = await page(jar, uid);
    expect(reload.status).toBe(200);
    expect(alertOf(reload.text)).toBeUndefined();
    // An API client's form post gets the error page, in German too.
    const direct = await request(jar, `${server.issuer}/select-account`, post({ uid, ...fields }, false));
    expect(direct.status).toBe(400);
    expect(alertOf(direct.text)).toBe('Wählen Sie „Weiter als …“ oder „Anderes Konto verwenden“.');
  });

  it.each([
    ['an unknown decision', { decision: 'maybe' }],
    ['no decision', {}],
  ])('the consent with %s: 303, then the German refusal once with 400 and its code', async (_, fields: Record<string, string>) => {
    const jar = await signedIn();
    const uid = uidOf((await request(jar, authorizeUrl(server, { clientId: THIRD.clientId, redirectUri: THIRD.redirectUri }))).text);
    const posted = await request(jar, `${server.issuer}/consent`, post({ uid, ...fields }));
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/interaction/${uid}`);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(400);
    expect(alertOf(shown.text)).toBe('Wählen Sie „Erlauben“ oder „Ablehnen“.');
    expect(errorCodeOf(shown.text)).toBe('invalid_request');
    expect(alertOf((await page(jar, uid)).text)).toBeUndefined();
  });

  it('English keeps the form’s own message', async () => {
    const jar = await signedIn({});
    const uid = uidOf((await request(jar, authorizeUrl(server, { prompt: 'select_account' }))).text);
    expect((await request(jar, `${server.issuer}/select-account`, post({ uid, choice: 'both' }))).status).toBe(303);
    expect(alertOf((await page(jar, uid)).text)).toBe('Field &quot;choice&quot; must be &quot;continue&quot; or &quot;another&quot;.');
  });

  it('a wrong recovery code says so in German after the redirect', async () => {
    const user = await server.createUser();
    const { jar, uid } = await passwordStep(server, user, new CookieJar(german));
    const posted = await request(jar, `${server.issuer}/mfa/verify`, post({ uid, method: 'recovery', code: 'aaaa-bbbb-cccc-dddd' }));
    expect(posted.status).toBe(303);
    const shown = await page(jar, uid);
    expect(shown.status).toBe(401);
    expect(alertOf(shown.text)).toBe('Dieser Wiederherstellungscode ist ungültig.');
    expect(errorCodeOf(shown.text)).toBe('invalid_code');
  });
});
