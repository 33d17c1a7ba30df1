/**
 * The admin console's browser steps: an account in an admin group (created with authctl, as an
 * operator makes one), the console's sign-in with the second factor, a browser signed in to the
 * console of a stack of its own (what the console's test files share), and moving the focus with
 * the Tab key only, as a keyboard user does.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { REPO_ROOT, startStack, type Stack } from './stack.ts';
import { cspViolationsOf, launchBrowser, submitCode, submitPassword } from './browser.ts';
import { createUser, type E2eUser } from './users.ts';

/** Runs `authctl <args>` against the stack's database; throws with its output when it fails. */
export async function authctl(stack: Pick<Stack, 'dataDir' | 'authEnv'>, args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), ...args], { cwd: stack.dataDir, env: stack.authEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`authctl ${args.join(' ')} failed (${code}): ${output}`);
  return output;
}

/** A stack of its own (no client apps) and a browser page signed in to its console as a new admin. */
export interface ConsoleSession {
  readonly stack: Stack;
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly admin: E2eUser;
  /** The page's CSP violations, as they happen. */
  readonly csp: string[];
}

/**
 * Starts the stack `name`, opens a browser (its context made with `context`) and signs in to the
 * console as a new admin labelled `admin`. What was opened before a failure is closed again.
 */
export async function openConsoleSession(options: { name: string; admin: string; context?: BrowserContextOptions }): Promise<ConsoleSession> {
  const opened: { stack?: Stack; browser?: Browser; context?: BrowserContext } = {};
  try {
    const stack = (opened.stack = await startStack({ name: options.name, clientApps: false }));
    const browser = (opened.browser = await launchBrowser());
    const context = (opened.context = await browser.newContext(options.context));
    const page = await context.newPage();
    const csp = cspViolationsOf(page);
    const admin = await adminUser(stack, options.admin);
    await signInToConsole(page, stack, admin);
    return { stack, browser, context, page, admin, csp };
  } catch (error) {
    await closeConsoleSession(opened);
    throw error;
  }
}

/** Closes what openConsoleSession opened (any part may be missing). */
export async function closeConsoleSession(session: Partial<Pick<ConsoleSession, 'stack' | 'browser' | 'context'>>): Promise<void> {
  await session.context?.close();
  await session.browser?.close();
  await session.stack?.stop();
}

/** A fresh user in `group` (admins: may change things; auditors: reads only). */
export async function adminUser(stack: Pick<Stack, 'dataDir' | 'authEnv'>, label: string, group: 'admins' | 'auditors' = 'admins'): Promise<E2eUser> {
  const user = await createUser(stack, label);
  user.groups = ['e2e', label, group];
  await authctl(stack, ['user', 'update', user.username, '--groups', user.groups.join(',')]);
  return user;
}

/** Opens /admin and signs in with password and code (enrolling TOTP at the first sign-in), back on the dashboard. */
export async function signInToConsole(page: Page, stack: Pick<Stack, 'authUrl'>, user: E2eUser): Promise<void> {
  await page.goto(`${stack.authUrl}/admin`);
  await submitPassword(page, user);
  await submitCode(page, user);
  await page.waitForURL(`${stack.authUrl}/admin`);
}

/** Presses Tab until `selector` has the focus (at most `max` times); fails when it never gets it. */
export async function tabTo(page: Page, selector: string, max = 120): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${selector} never got the focus with the Tab key`);
}
