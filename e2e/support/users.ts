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
import type { AuthClock } from './test-clock.ts';

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
   * The server's test clock when the test moves it (support/test-clock.ts): the user's
   * authenticator app reads its time, as a phone keeps the world's time; else the system clock.
   */
  clock?: AuthClock;
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

const STEP_MS = 30_000;
/**
 * How long before its step ends a code of the previous step is still offered: at least this long
 * is left for the page to submit it before the server's window moves past it.
 */
const PREVIOUS_STEP_MIN_LEFT_MS = 15_000;

/**
 * A code for the user's authenticator that this account has not used yet, and that the server
 * accepts now. The server accepts the current step and one step either side, and refuses a step
 * not later than the last one the account used (apps/auth/src/mfa/totp.ts, consumeTotpStep), so:
 * - the first code is of the previous step while at least PREVIOUS_STEP_MIN_LEFT_MS of the current
 *   step is left (three codes then fit in the window), else of the current step;
 * - each next code is of the step after the last one used;
 * - a step more than one ahead of the server's time needs the clock: with a test clock
 *   (E2eUser.clock) the server's time is moved on by that wait (less than one step, in whole
 *   seconds), else the test waits for it, as a person waits for the app's next code.
 */
export async function nextCode(user: E2eUser): Promise<string> {
  if (!user.totpSecret) throw new Error(`no TOTP secret known for ${user.username}`);
  const now = user.clock ? user.clock.now : Date.now;
  const at = now();
  const current = Math.floor(at / STEP_MS);
  const earliest = STEP_MS - (at % STEP_MS) >= PREVIOUS_STEP_MIN_LEFT_MS ? current - 1 : current;
  const step = user.lastStep === undefined ? earliest : Math.max(earliest, user.lastStep + 1);
  const acceptedFrom = (step - 1) * STEP_MS;
  if (now() < acceptedFrom) {
    const waitMs = acceptedFrom - now() + 50;
    if (user.clock) await user.clock.advance(Math.ceil(waitMs / 1000));
    else await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  user.lastStep = step;
  return generate({ secret: user.totpSecret, epoch: step * 30, algorithm: 'sha1', digits: 6, period: 30 });
}

/** A well-formed code that is not valid now (from an hour ago). */
export async function staleCode(user: E2eUser): Promise<string> {
  const now = user.clock ? user.clock.now() : Date.now();
  return generate({ secret: user.totpSecret!, epoch: Math.floor(now / 1000) - 3600, algorithm: 'sha1', digits: 6, period: 30 });
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
