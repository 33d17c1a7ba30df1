/**
 * Scenario 6 of e2e/README.md, "Scenarios": a wrong password, a wrong code and a lockout, each with its message.
 * Its own stack: failures count against the client IP too (every test browses from 127.0.0.1),
 * so a lockout here must not lock out the other scenarios. The lockout test runs last.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startStack, type Stack } from '../support/stack.ts';
import { CODE_SUBMIT, launchBrowser, navigateBy, shownTotpSecret, screenshot, submitCode, submitPassword } from '../support/browser.ts';
import { createUser, staleCode } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  stack = await startStack({ name: 'login-failures', authEnv: { AUTH_REGULATION_MAX_RETRIES: '5' } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

beforeEach(async () => {
  context = await browser.newContext();
  page = await context.newPage();
});

afterEach(async () => {
  await context?.close();
});

const alert = async () => (await page.locator('[role=alert]').textContent())?.trim();

describe('issue 4, scenario 6: sign-in failures in Chromium', () => {
  it('a wrong password shows "Invalid username or password."', async () => {
    const user = await createUser(stack, 'wrongpw');
    await page.goto(`${stack.appOneUrl}/`);
    await submitPassword(page, user, 'not-the-password');
    expect(await page.locator('h1').textContent()).toBe('Sign in');
    expect(await alert()).toBe('Invalid username or password.');
    expect(await page.inputValue('#username')).toBe(user.username);
    await screenshot(page, '6a-wrong-password');
  });

  it('a wrong code shows its message, and the right code then signs in', async () => {
    const user = await createUser(stack, 'wrongcode');
    await page.goto(`${stack.appOneUrl}/`);
    await submitPassword(page, user);
    user.totpSecret = await shownTotpSecret(page);
    await page.fill('#code', await staleCode(user));
    await navigateBy(page, () => page.click(CODE_SUBMIT));
    expect(await alert()).toBe('That code is not valid. Check the code in your authenticator app and try again.');
    await screenshot(page, '6b-wrong-code');

    await submitCode(page, user);
    await page.waitForURL(`${stack.appOneUrl}/`);
    expect(await page.locator('#user-name').textContent()).toBe(user.name);
    await screenshot(page, '6b-wrong-code-then-signed-in');
  });

  it('repeated failures lock the sign-in, even with the right password', async () => {
    const user = await createUser(stack, 'lockout');
    await page.goto(`${stack.appOneUrl}/`);
    const messages: string[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      await submitPassword(page, user, `wrong-${attempt}`);
      const message = (await alert()) ?? '';
      messages.push(message);
      if (message.startsWith('Too many attempts')) break;
    }
    expect(messages[0]).toBe('Invalid username or password.');
    expect(messages.at(-1)).toMatch(/^Too many attempts\. Try again in \d+ minutes?\.$/);

    await submitPassword(page, user);
    expect(await alert()).toMatch(/^Too many attempts\. Try again in \d+ minutes?\.$/);
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
    await screenshot(page, '6c-lockout');
  });
});
