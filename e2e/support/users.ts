/**
 * Test accounts. Each test gets a fresh one through the operator CLI (`authctl user add`), the way an
 * operator creates users, because TOTP replay protection and lockout are per account.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { generate } from 'otplib';
import { DEV_DEFAULTS } from '@gatehouse/contracts';
import { openDatabase } from '@gatehouse/db';
import { REPO_ROOT, type Stack } from './stack.ts';

export interface E2eUser {
  username: string;
  password: string;
  name: string;
  email: string;
  groups: string[];
  /** Read from the enrollment page at the first sign-in. */
  totpSecret?: string;
  /** Last TOTP time step used (each is accepted once per account). */
  lastStep?: number;
  /**
   * The time the user's authenticator app reads (epoch ms): the system clock, or the server's
   * test clock when the test moves it (support/test-clock.ts), as a phone keeps the world's time.
   */
  clock?: () => number;
}

export const demoUser = (): E2eUser => ({ ...DEV_DEFAULTS.demoUser, groups: [...DEV_DEFAULTS.demoUser.groups] });

export async function createUser(stack: Pick<Stack, 'dataDir' | 'authEnv'>, label: string): Promise<E2eUser> {
  const username = `${label}-${randomBytes(3).toString('hex')}`;
  const user: E2eUser = {
    username,
    password: `pw-${randomBytes(9).toString('base64url')}`,
    name: `E2E ${label}`,
    email: `${username}@example.com`,
    // editors: the development seed grants movies:write only to it (the access policy), and the
    // landing page writes.
    groups: ['e2e', label, 'editors'],
  };
  const args = ['user', 'add', username, '--email', user.email, '--name', user.name, '--groups', user.groups.join(','), '--password-stdin'];
  const child = spawn(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), ...args], {
    cwd: stack.dataDir,
    env: stack.authEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.end(`${user.password}\n`);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`authctl user add failed (${code}): ${output}`);
  return user;
}

/**
 * A code for the user's authenticator that this account has not used yet, and that the server
 * accepts now. The server refuses a step it has seen (replay) and accepts one step ahead at most
 * (apps/auth/src/mfa/totp.ts), so after two codes within one 30 s step the third has to wait for
 * the clock, as a person would wait for the app's next code: up to one step, and only then.
 */
export async function nextCode(user: E2eUser): Promise<string> {
  if (!user.totpSecret) throw new Error(`no TOTP secret known for ${user.username}`);
  const now = user.clock ?? Date.now;
  let step = Math.floor(now() / 30_000);
  if (user.lastStep !== undefined && step <= user.lastStep) step = user.lastStep + 1;
  const acceptedFrom = (step - 1) * 30_000;
  if (now() < acceptedFrom) await new Promise((resolve) => setTimeout(resolve, acceptedFrom - now() + 50));
  user.lastStep = step;
  return generate({ secret: user.totpSecret, epoch: step * 30, algorithm: 'sha1', digits: 6, period: 30 });
}

/** A well-formed code that is not valid now (from an hour ago). */
export async function staleCode(user: E2eUser): Promise<string> {
  return generate({ secret: user.totpSecret!, epoch: Math.floor(Date.now() / 1000) - 3600, algorithm: 'sha1', digits: 6, period: 30 });
}

/**
 * Leaves the account with no authenticator app and no recovery codes, as when an operator removed
 * them: its passkeys or push devices are then its only second factor.
 */
export async function removeTotpAndRecoveryCodes(stack: Pick<Stack, 'authEnv'>, username: string): Promise<void> {
  const database = openDatabase<{ accounts: { id: string; username: string; totp_secret_sealed: string | null }; recovery_codes: { account_id: string } }>(stack.authEnv.AUTH_DATABASE_URL!);
  try {
    const { id } = await database.db.selectFrom('accounts').select('id').where('username', '=', username).executeTakeFirstOrThrow();
    await database.db.updateTable('accounts').set({ totp_secret_sealed: null }).where('id', '=', id).execute();
    await database.db.deleteFrom('recovery_codes').where('account_id', '=', id).execute();
  } finally {
    await database.close();
  }
}

/** A one-time password-reset link for the user, as an operator prints it (`authctl user reset-link`). */
export function resetLink(stack: Pick<Stack, 'dataDir' | 'authEnv'>, username: string): string {
  const printed = execFileSync(process.execPath, [join(REPO_ROOT, 'apps/auth/src/cli/main.ts'), 'user', 'reset-link', username, '--json'], { cwd: stack.dataDir, env: stack.authEnv });
  return (JSON.parse(printed.toString()) as { url: string }).url;
}
