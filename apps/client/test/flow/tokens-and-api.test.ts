import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import { hiddenField, startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';
import { readSession } from '../../src/sessions/session-data.ts';

let auth: TestAuthServer;
let api: StubApi;
let client: ClientHarness;

beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
  client = await startClient({ auth, apiUrl: api.url });
});

afterAll(async () => {
  await client?.close();
  await api?.close();
  await auth?.close();
});

async function signedIn(harness = client): Promise<CookieJar> {
  const jar = new CookieJar();
  const callback = await harness.login(jar, await auth.createUser());
  expect(callback.status).toBe(302);
  return jar;
}

async function storedSession(jar: CookieJar, harness = client) {
  return readSession(await harness.app.stores.sessions.get(jar.cookies.get(harness.config.cookies.session)!));
}

describe('the landing page and the API', () => {
  it('lists the collection with the access token as a Bearer credential', async () => {
    api.items.clear();
    api.items.set(7, { id: 7, title: 'Metropolis' });
    const jar = await signedIn();
    const landing = await client.get(jar, '/');
    expect(landing.status).toBe(200);
    expect(landing.text).toContain('<tr data-id="7">');
    expect(landing.text).toContain('<td>Metropolis</td>');
    expect(api.tokens.at(-1)).toBe((await storedSession(jar))!.tokens.accessToken);
  });

  it('adds and deletes an item, with the CSRF token of the session', async () => {
    api.items.clear();
    const jar = await signedIn();
    const csrf = hiddenField((await client.get(jar, '/')).text, '_csrf');
    const added = await client.post(jar, '/items', { _csrf: csrf, id: '42', value: 'Nosferatu' });
    expect(added.status).toBe(303);
    expect(added.location).toBe('/');
    expect(api.items.get(42)).toEqual({ id: 42, title: 'Nosferatu' });
    const page = await client.get(jar, '/');
    expect(page.text).toContain('<p class="notice" role="status" id="flash">Added movies 42.</p>');
    expect(page.text).toContain('<td>Nosferatu</td>');
    expect((await client.get(jar, '/')).text).not.toContain('id="flash"');

    const deleted = await client.post(jar, '/items/42/delete', { _csrf: csrf });
    expect(deleted.status).toBe(303);
    expect(api.items.has(42)).toBe(false);
    expect((await client.get(jar, '/')).text).toContain('Deleted movies 42.');
  });

  it("shows the API's errors as messages", async () => {
    api.items.clear();
    api.items.set(1, { id: 1, title: 'Taken' });
    const jar = await signedIn();
    const csrf = hiddenField((await client.get(jar, '/')).text, '_csrf');
    await client.post(jar, '/items', { _csrf: csrf, id: '1', value: 'Again' });
    expect((await client.get(jar, '/')).text).toContain(
      '<p class="error" role="alert" id="flash">The API answered 409 Conflict: movies already has an item with id 1 (duplicate_id).</p>',
    );
    await client.post(jar, '/items/99/delete', { _csrf: csrf });
    expect((await client.get(jar, '/')).text).toContain('The API answered 404 Not Found: movies has no item with id 99 (item_not_found).');
  });

  it('shows a 403 for a missing scope as a message', async () => {
    const readOnly = await startClient({ auth, apiUrl: api.url, env: { CLIENT_SCOPES: 'openid profile email movies:read' } });
    try {
      const jar = await signedIn(readOnly);
      const csrf = hiddenField((await readOnly.get(jar, '/')).text, '_csrf');
      await readOnly.post(jar, '/items', { _csrf: csrf, id: '5', value: 'Forbidden' });
      expect((await readOnly.get(jar, '/')).text).toContain(
        'The API answered 403 Forbidden: this request needs the scope movies:write (insufficient_scope).',
      );
      expect(api.items.has(5)).toBe(false);
    } finally {
      await readOnly.close();
    }
  });

  it('refuses a form without the CSRF token of the session', async () => {
    const jar = await signedIn();
    const response = await client.post(jar, '/items', { _csrf: 'forged', id: '3', value: 'x' });
    expect(response.status).toBe(403);
    expect(response.text).toContain('<code id="error-code">csrf_failed</code>');
    expect(api.items.has(3)).toBe(false);
    const missing = await client.post(jar, '/logout', {});
    expect(missing.status).toBe(403);
    expect((await client.get(jar, '/')).status).toBe(200);
  });

  it('validates the form before calling the API', async () => {
    const jar = await signedIn();
    const csrf = hiddenField((await client.get(jar, '/')).text, '_csrf');
    const calls = api.tokens.length;
    await client.post(jar, '/items', { _csrf: csrf, id: '0', value: 'x' });
    expect((await client.get(jar, '/')).text).toContain('The id must be a positive whole number.');
    expect(api.tokens.length).toBe(calls + 1);
  });
});

describe('access token refresh', () => {
  it('refreshes an expired access token transparently (client clock moved past expiry)', async () => {
    const jar = await signedIn();
    const before = (await storedSession(jar))!.tokens;
    client.offsetMs = (before.expiresAt - Date.now()) + 1000;
    try {
      const landing = await client.get(jar, '/');
      expect(landing.status).toBe(200);
      const after = (await storedSession(jar))!.tokens;
      expect(after.accessToken).not.toBe(before.accessToken);
      expect(after.refreshToken).not.toBe(before.refreshToken);
      expect(after.expiresAt).toBeGreaterThan(before.expiresAt);
      expect(api.tokens.at(-1)).toBe(after.accessToken);
    } finally {
      client.offsetMs = 0;
    }
  });

  it('refreshes once when the API answers 401, and repeats the call', async () => {
    const jar = await signedIn();
    const before = (await storedSession(jar))!.tokens;
    api.rejected.add(before.accessToken);
    const calls = api.tokens.length;
    const landing = await client.get(jar, '/');
    expect(landing.status).toBe(200);
    expect(landing.text).not.toContain('id="items-error"');
    expect(api.tokens.slice(calls)).toEqual([before.accessToken, (await storedSession(jar))!.tokens.accessToken]);
  });

  it('refreshes once for concurrent requests (rotation never sees a used refresh token)', async () => {
    const jar = await signedIn();
    const before = (await storedSession(jar))!.tokens;
    client.offsetMs = (before.expiresAt - Date.now()) + 1000;
    try {
      const pages = await Promise.all([client.get(jar, '/'), client.get(jar, '/'), client.get(jar, '/')]);
      expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
      expect(pages.every((p) => !p.text.includes('id="items-error"'))).toBe(true);
      // The grant survived: one more refresh still works.
      client.offsetMs += 2 * 3600_000;
      expect((await client.get(jar, '/')).status).toBe(200);
    } finally {
      client.offsetMs = 0;
    }
  });

  it('sends the user to log in again when the refresh is refused', async () => {
    const jar = await signedIn();
    const before = (await storedSession(jar))!.tokens;
    const revoke = await fetch(`${auth.issuer}/oauth2/v1/revoke`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.config.clientId}:${client.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: before.refreshToken!, token_type_hint: 'refresh_token' }),
    });
    expect(revoke.status).toBe(200);
    client.offsetMs = (before.expiresAt - Date.now()) + 1000;
    try {
      const sessions = await client.app.stores.sessions.count();
      const response = await client.get(jar, '/');
      expect(response.status).toBe(302);
      expect(new URL(response.location!).pathname).toBe('/oauth2/v1/authorize');
      expect(response.headers.getSetCookie().some((l) => l.startsWith(`${client.config.cookies.session}=;`))).toBe(true);
      expect(jar.cookies.has(client.config.cookies.session)).toBe(false);
      expect(await client.app.stores.sessions.count()).toBe(sessions - 1);
    } finally {
      client.offsetMs = 0;
    }
  });
});
