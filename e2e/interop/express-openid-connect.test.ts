/**
 * express-openid-connect (Auth0's express middleware) with its documented minimal configuration,
 * `auth({ issuerBaseURL, baseURL, clientID, secret })`, running as a real express server on a free
 * loopback port, signed in through Chromium. Its defaults are `response_type=id_token` with
 * `response_mode=form_post` (no access token, no client secret), so its client is registered with
 * `authctl client add ... --response-type id_token`. The app's page answers `req.oidc.user`.
 */
import type { Server } from 'node:http';
import express from 'express';
import { auth } from 'express-openid-connect';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot } from '../support/browser.ts';
import { freePort } from '../support/processes.ts';
import { createUser, type E2eUser } from '../support/users.ts';
import { authorizeInBrowser } from './support/browser-authorization.ts';
import { addClient, interopStack } from './support/interop-stack.ts';

const stack = interopStack();

let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: E2eUser;
let server: Server;
let baseURL: string;
let clientID: string;

beforeAll(async () => {
  const port = await freePort();
  // localhost like the issuer: the form post comes back same-site, so the middleware's cookies go with it.
  baseURL = `http://localhost:${port}`;
  ({ client_id: clientID } = await addClient(stack, 'eoc-app', [
    '--redirect-uri',
    `${baseURL}/callback`,
    '--post-logout-redirect-uri',
    baseURL,
    '--response-type',
    'id_token',
    '--name',
    'express-openid-connect app',
  ]));
  const app = express();
  app.use(auth({ issuerBaseURL: stack.authUrl, baseURL, clientID, secret: 'a long, random string for the session cookie of the interop app' }));
  app.get('/', (req, res) => {
    res.json({ authenticated: req.oidc.isAuthenticated(), user: req.oidc.user ?? null, hasAccessToken: req.oidc.accessToken !== undefined });
  });
  await new Promise<void>((resolve) => {
    server = app.listen(port, '127.0.0.1', () => resolve());
  });
  user = await createUser(stack, 'eoc');
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe('express-openid-connect 3.4.0, minimal configuration', () => {
  it('an unauthenticated visit goes to the authorization server with response_type=id_token and form_post; after sign-in the app knows the user', async () => {
    const authorizations: URL[] = [];
    const callbacks: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.href.startsWith(`${stack.authUrl}/oauth2/v1/authorize?`)) authorizations.push(url);
      if (url.href === `${baseURL}/callback`) callbacks.push(request.method());
    });
    // The app's own redirect to the authorization server is where the library's request starts.
    const { callback, steps } = await authorizeInBrowser(page, new URL(`${baseURL}/`), `${baseURL}/`, user);
    expect(steps).toEqual(['login', 'mfa', 'consent']);
    expect(callback.href).toBe(`${baseURL}/`);

    expect(authorizations).toHaveLength(1);
    const params = authorizations[0]!.searchParams;
    expect(Object.fromEntries([...params].filter(([name]) => !['nonce', 'state'].includes(name)))).toEqual({
      client_id: clientID,
      scope: 'openid profile email',
      response_type: 'id_token',
      response_mode: 'form_post',
      redirect_uri: `${baseURL}/callback`,
    });
    expect(callbacks).toEqual(['POST']);

    const body = JSON.parse((await page.locator('body').textContent())!) as Record<string, unknown>;
    expect(body).toEqual({
      authenticated: true,
      hasAccessToken: false,
      user: {
        sub: expect.any(String),
        amr: ['pwd', 'otp'],
        acr: 'urn:gatehouse:loa:mfa',
        name: user.name,
        preferred_username: user.username,
        email: user.email,
        email_verified: true,
        groups: user.groups,
      },
    });
    await screenshot(page, 'interop-express-openid-connect-signed-in');
  });

  it('the next visit is served from the app session with no trip to the authorization server', async () => {
    const toIssuer: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(stack.authUrl)) toIssuer.push(request.url());
    });
    await page.goto(`${baseURL}/`);
    expect(toIssuer).toEqual([]);
    const body = JSON.parse((await page.locator('body').textContent())!) as { authenticated: boolean; user: { email: string } };
    expect([body.authenticated, body.user.email]).toEqual([true, user.email]);
  });
});
