/**
 * The admin console's Scope policies, Signing keys and Audit trail sections in Chromium against
 * the whole stack, keyboard only: an admin restricts a scope to groups and lifts the policy after
 * a confirmation page, rotates the signing key after a confirmation page and finds the new kid in
 * the published JWKS, then filters the audit trail with the form and follows an event's link to
 * the user it names (the Users section). A read-only auditor sees the keys without the rotate button. Every page is
 * checked with axe-core and screenshotted at 390 and 1280 px; no CSP workaround.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkAtBothWidths } from '../support/axe.ts';
import { cspViolationsOf, navigateBy } from '../support/browser.ts';
import { adminUser, closeConsoleSession, openConsoleSession, signInToConsole, tabTo } from '../support/admin-console.ts';
import type { Stack } from '../support/stack.ts';
import type { E2eUser } from '../support/users.ts';

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let admin: E2eUser;
let csp: string[];

beforeAll(async () => {
  ({ stack, browser, context, page, admin, csp } = await openConsoleSession({ name: 'admin-console-keys-audit', admin: 'console-keys' }));
});

afterAll(() => closeConsoleSession({ stack, browser, context }));

const text = async (selector: string) => (await page.locator(selector).first().textContent())?.trim();
const enter = () => navigateBy(page, () => page.keyboard.press('Enter'));

async function publishedKids(): Promise<string[]> {
  const jwks = (await (await fetch(`${stack.authUrl}/oauth2/v1/keys`)).json()) as { keys: { kid: string }[] };
  return jwks.keys.map((k) => k.kid);
}

describe('issue 33, the admin console: scope policies, signing keys, audit trail', () => {
  it('restricts a scope to groups and lifts the policy after a confirmation page', async () => {
    await page.goto(`${stack.authUrl}/admin/scopes`);
    expect(await text('h1')).toBe('Scope policies');
    await checkAtBothWidths(page, 'admin-console-scopes');
    await tabTo(page, '#scope');
    await page.selectOption('#scope', 'cars:write');
    await tabTo(page, '#groups');
    await page.keyboard.type('garage, admins');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${stack.authUrl}/admin/scopes`);
    await page.locator('#flash').waitFor();
    expect(await text('#flash')).toBe('cars:write is granted only to users in: garage, admins.');
    expect(await text('#policy-cars-write td')).toBe('garage, admins');
    await tabTo(page, 'a[href="/admin/scopes/cars%3Awrite/clear"]');
    await enter();
    expect(await text('h1')).toBe('Lift the policy of cars:write?');
    await checkAtBothWidths(page, 'admin-console-scopes-lift-confirm');
    await tabTo(page, '#confirm-action');
    await enter();
    expect(await text('#flash')).toBe('cars:write is open to every user.');
  });

  it('rotates the signing key after a confirmation page: the new kid is published in the JWKS', async () => {
    const before = await publishedKids();
    await page.goto(`${stack.authUrl}/admin/keys`);
    expect(await text('h1')).toBe('Signing keys');
    expect(await page.locator('#key-list tr[data-state="active"]').count()).toBe(1);
    await checkAtBothWidths(page, 'admin-console-keys');
    await tabTo(page, '#rotate-keys');
    await enter();
    expect(await text('h1')).toBe('Rotate the signing key now?');
    await checkAtBothWidths(page, 'admin-console-keys-rotate-confirm');
    await tabTo(page, '#confirm-action');
    await enter();
    const kid = /^New signing key (\S+)\. Retired /.exec((await text('#flash'))!)![1]!;
    expect(before).not.toContain(kid);
    expect(await page.locator('#key-list tr[data-state="active"]').getAttribute('data-kid')).toBe(kid);
    const after = await publishedKids();
    expect(after[0]).toBe(kid);
    expect(after).toEqual(expect.arrayContaining(before));
  });

  it('filters the audit trail with the form and follows an event to the user it names', async () => {
    await page.goto(`${stack.authUrl}/admin/audit`);
    expect(await text('h1')).toBe('Audit trail');
    await tabTo(page, '#filter-event');
    await page.keyboard.type('admin.');
    await tabTo(page, '#filter-since');
    await page.keyboard.type('1h');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/admin\/audit\?/);
    await page.locator('#audit-list').waitFor();
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ user: '', client: '', event: 'admin.', since: '1h', until: '' });
    const events = await page.locator('#audit-list tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event')));
    // Newest first: the console's changes, then authctl's creation of this admin.
    expect(events.slice(0, 3)).toEqual(['admin.keys.rotated', 'admin.scope.policy_cleared', 'admin.scope.policy_set']);
    expect(await page.locator('#audit-list tbody tr').first().locator('td').nth(4).textContent()).toBe(`admin ${admin.username}`);
    await checkAtBothWidths(page, 'admin-console-audit');

    // A filter the trail cannot read is shown above the form, as typed.
    await tabTo(page, '#filter-until');
    await page.keyboard.type('tomorrow');
    await page.keyboard.press('Enter');
    await page.locator('#filter-error').waitFor();
    expect(await text('#filter-error p')).toBe('until must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)');
    expect(await page.inputValue('#filter-until')).toBe('tomorrow');
    await checkAtBothWidths(page, 'admin-console-audit-refused');
    await page.goto(`${stack.authUrl}/admin/audit?event=admin.&since=1h`);

    // authctl made this admin an admin (admin.user.updated): the event links to their page in the Users section.
    const accountId = (await page.locator('#audit-list tr[data-event="admin.user.updated"] td').nth(2).locator('a').getAttribute('href'))!.split('/').pop()!;
    await tabTo(page, `#audit-list tr[data-event="admin.user.updated"] a[href="/admin/users/${accountId}"]`);
    await enter();
    expect(page.url()).toBe(`${stack.authUrl}/admin/users/${accountId}`);
    expect(await text('h1')).toBe(admin.username);
  });

  it('a read-only auditor sees the keys and the policies without the forms that change them', async () => {
    const auditorContext = await browser.newContext();
    const auditorPage = await auditorContext.newPage();
    const violations = cspViolationsOf(auditorPage);
    const auditor = await adminUser(stack, 'console-auditor', 'auditors');
    await signInToConsole(auditorPage, stack, auditor);
    await auditorPage.goto(`${stack.authUrl}/admin/keys`);
    expect(await auditorPage.locator('#readonly-banner').count()).toBe(1);
    expect(await auditorPage.locator('#rotate-keys').count()).toBe(0);
    await checkAtBothWidths(auditorPage, 'admin-console-keys-read-only');
    await auditorPage.goto(`${stack.authUrl}/admin/scopes`);
    expect(await auditorPage.locator('#policy-form').count()).toBe(0);
    await auditorContext.close();
    expect(violations).toEqual([]);
    expect(csp).toEqual([]);
  });
});
