/**
 * The admin console's browser steps: an account in an admin group (created with authctl, as an
 * operator makes one), the console's sign-in with the second factor, and moving the focus with
 * the Tab key only, as a keyboard user does.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT, type Stack } from './stack.ts';
import { submitCode, submitPassword } from './browser.ts';
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
