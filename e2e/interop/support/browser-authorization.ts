/**
 * The user's part of an authorization request, in Chromium: the library under test builds the
 * authorization URL and reads the callback; in between the user signs in (password, TOTP, enrolling
 * it at the account's first sign-in) and answers the consent page, as a person would. Rules:
 * - the relying party's redirect URI is served by callback-server.ts; the URL the browser lands on
 *   there is the result;
 * - every page the user went through is reported in order (`login`, `mfa`, `consent`), so a test
 *   can assert that a step was, or was not, asked;
 * - a page that is none of these and does not move on to the redirect URI by itself (as the
 *   form_post page does) within a few seconds fails with its heading and text (an error page).
 */
import type { Page } from 'playwright-core';
import { submitCode, submitPassword } from '../../support/browser.ts';
import type { E2eUser } from '../../support/users.ts';

export type AuthorizationStep = 'login' | 'mfa' | 'consent';

export interface AuthorizationOutcome {
  /** The URL the authorization server sent the browser back to (code, state, iss, or the error). */
  callback: URL;
  steps: AuthorizationStep[];
}

/** The consent page's buttons (views of the authorization server). */
const CONSENT_ALLOW = '#consent-allow';
const CONSENT_DENY = '#consent-deny';

export async function authorizeInBrowser(
  page: Page,
  authorizationUrl: URL,
  redirectUri: string,
  user: E2eUser,
  consent: 'allow' | 'deny' = 'allow',
): Promise<AuthorizationOutcome> {
  const steps: AuthorizationStep[] = [];
  const atCallback = () => page.url().startsWith(redirectUri);
  await page.goto(authorizationUrl.href);
  for (let step = 0; step < 6 && !atCallback(); step += 1) {
    if (await page.locator('#password').count()) {
      steps.push('login');
      await submitPassword(page, user);
    } else if (await page.locator('#code').count()) {
      steps.push('mfa');
      await submitCode(page, user);
    } else if (await page.locator(CONSENT_ALLOW).count()) {
      steps.push('consent');
      await Promise.all([page.waitForLoadState('load'), page.click(consent === 'allow' ? CONSENT_ALLOW : CONSENT_DENY)]);
    } else if (await arrives(page, redirectUri)) {
      // A page that moves on by itself: the form_post answer, whose script posts to the RP.
      break;
    } else {
      const heading = (await page.locator('h1').first().textContent().catch(() => null))?.trim();
      const text = (await page.locator('main').first().textContent().catch(() => null))?.replace(/\s+/g, ' ').trim();
      throw new Error(`unexpected page at ${page.url()}: ${heading ?? '(no heading)'}: ${text ?? ''}`);
    }
  }
  if (!atCallback()) throw new Error(`the browser did not reach ${redirectUri} (at ${page.url()} after ${steps.join(', ')})`);
  return { callback: new URL(page.url()), steps };
}

/** Waits a few seconds for the browser to reach `redirectUri` on its own; false if it does not. */
async function arrives(page: Page, redirectUri: string): Promise<boolean> {
  try {
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}
