/**
 * `authctl user ...`. Rules:
 * - passwords are read from standard input only (never argv, which other users can see); one
 *   trailing newline is dropped, nothing else;
 * - a new password follows accounts/password-policy.ts (12 to 128 code points, no composition
 *   rule, not on the common-passwords list); the error names the rule broken;
 * - changes (add, update, remove, passwd, disable, enable, unlock, signout-all, reset-mfa) go through the user
 *   service (admin/user-admin.ts), which audits them with the actor `operator:cli`;
 * - remove, disable, passwd and reset-mfa end every SSO session, grant and refresh token of the
 *   user at once and say how many (accounts/end-account-access.ts); enable gives back the right
 *   to sign in, never a session;
 * - `user list` shows who is disabled and who is locked out by brute-force regulation now and
 *   until when (the user service's lockedUntil, as the admin API shows it);
 * - `--json` prints a user, a list and sessions in the admin API's shapes (admin/json/): the same
 *   object as the admin API's body for the same stored user (a list's `next` is null: authctl
 *   lists every user at once; sessions without their ids);
 * - output never contains a password or its hash; `user totp` prints the enrolment URI, which is its purpose;
 * - `user reset-link` prints a one-time password-reset link (admin/password-reset.ts) for the
 *   operator to hand over (Gatehouse sends no mail); it is audited with the actor, never logged.
 */
import { checkPassword } from '../accounts/password-policy.ts';
import { type Ended } from '../admin/user-admin.ts';
import { CLI_OPERATOR } from '../audit/actor.ts';
import { issuePasswordReset } from '../admin/password-reset.ts';
import { sessionJson } from '../admin/json/session-json.ts';
import { userDetailsJson, userJson } from '../admin/json/user-json.ts';
import { createTotp } from '../mfa/totp.ts';
import { qrTerminal } from '../mfa/qr.ts';
import { parseCommand, required, UsageError } from './args.ts';
import { CliError, type CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const USER_USAGE = [
  '  user add <username> --email <e> --name <n> [--groups a,b] --password-stdin [--json]',
  '  user list [--json]                   every user, with DISABLED and LOCKED (brute-force lockout now, and until when)',
  '  user update <username> [--email <e>] [--name <n>] [--groups a,b | --clear-groups]   e.g. --groups admins,users makes an admin-API admin',
  '  user remove <username>               deletes the user; ends every session, grant and token of theirs now',
  '  user disable <username>              no more sign-ins; ends every session, grant and token of theirs now',
  '  user enable <username>               allows sign-in again; no session comes back (the user signs in anew)',
  '  user passwd <username> --password-stdin   sets a new password; ends the user\'s lockouts and every session, grant and refresh token',
  '  user unlock <username>               ends the lockouts of the user\'s password and second factor',
  '  user sessions <username> [--json]    the user\'s signed-in sessions and the clients they signed in to',
  '  user signout-all <username>          ends every session, grant and refresh token of the user (sign out everywhere)',
  '  user totp <username> [--json]        enrol or re-enrol TOTP, prints the otpauth:// URI and a QR code',
  '  user reset-mfa <username>            removes TOTP, authenticator devices, passkeys and recovery codes and ends every session, grant and refresh token; the user enrols again at the next sign-in',
  '  user reset-link <username> [--json]  prints a one-time password-reset link (1 hour; replaces the previous link)',
];

export async function runUserCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'add':
      return addUser(args, ctx);
    case 'list':
      return listUsers(args, ctx);
    case 'update':
      return updateUser(args, ctx);
    case 'remove':
      return removeUser(args, ctx);
    case 'disable':
    case 'enable':
      return setUserDisabled(sub, args, ctx);
    case 'totp':
      return enrolTotp(args, ctx);
    case 'passwd':
      return setPassword(args, ctx);
    case 'unlock':
      return unlockUser(args, ctx);
    case 'sessions':
      return listSessions(args, ctx);
    case 'signout-all':
      return signOutAll(args, ctx);
    case 'reset-mfa':
      return resetMfa(args, ctx);
    case 'reset-link':
      return resetLink(args, ctx);
    default:
      throw new UsageError(
        sub ? `unknown command "user ${sub}"` : 'user: missing subcommand (add, list, update, remove, disable, enable, passwd, unlock, sessions, signout-all, totp, reset-mfa, reset-link)',
      );
  }
}

/** The password piped on stdin, checked against the policy. */
function readPassword(stdin: string): string {
  const password = stdin.replace(/\r?\n$/, '');
  if (!password) throw new CliError('password is empty (pipe it on standard input)');
  checkPassword(password);
  return password;
}

async function addUser(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'user add';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['username'],
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      groups: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const email = required(values.email, command, 'email');
  const name = required(values.name, command, 'name');
  if (!values['password-stdin']) throw new UsageError(`${command}: missing required option --password-stdin (the password is read from standard input)`);
  const password = readPassword(ctx.io.stdin);
  const groups = (values.groups ?? '').split(',').map((g) => g.trim()).filter(Boolean);
  const admin = await ctx.userAdmin();
  const account = await admin.create(CLI_OPERATOR, { username: positionals[0]!, email, name, groups, password });
  if (values.json) {
    ctx.printJson(userDetailsJson(await admin.get(account.id), await admin.lockedUntil(account.username)));
  } else {
    ctx.print(`created user ${account.username} (id ${account.id})`);
  }
}

async function updateUser(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'user update';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['username'],
    options: { email: { type: 'string' }, name: { type: 'string' }, groups: { type: 'string' }, 'clear-groups': { type: 'boolean' }, json: { type: 'boolean' } },
  });
  if (values.groups !== undefined && values['clear-groups']) throw new UsageError(`${command}: give --groups or --clear-groups, not both`);
  const groups = values['clear-groups'] ? [] : values.groups?.split(',').map((g) => g.trim()).filter(Boolean);
  if (values.email === undefined && values.name === undefined && groups === undefined) {
    throw new UsageError(`${command}: give at least one of --email, --name, --groups, --clear-groups`);
  }
  const admin = await ctx.userAdmin();
  const account = await admin.update(CLI_OPERATOR, positionals[0]!, { email: values.email, name: values.name, groups });
  if (values.json) {
    ctx.printJson(userDetailsJson(await admin.get(account.id), await admin.lockedUntil(account.username)));
    return;
  }
  ctx.print(`updated ${account.username}: email ${account.email}, name ${account.name}, groups ${account.groups.join(',') || '(none)'}`);
}

async function listUsers(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'user list', positionals: [], options: { json: { type: 'boolean' } } });
  const { accounts } = await ctx.stores();
  const users = await ctx.userAdmin();
  const all = await accounts.list();
  const locks = await Promise.all(all.map((a) => users.lockedUntil(a.username)));
  const lockedUntil = (i: number) => (locks[i] === null ? null : new Date(locks[i]!).toISOString());
  if (values.json) {
    ctx.printJson({ items: all.map((a, i) => userJson(a, locks[i] ?? null)), next: null });
    return;
  }
  if (all.length === 0) {
    ctx.print('no users');
    return;
  }
  printTable(
    ctx,
    ['USERNAME', 'EMAIL', 'NAME', 'GROUPS', 'TOTP', 'DISABLED', 'LOCKED'],
    all.map((a, i) => [a.username, a.email, a.name, a.groups.join(','), a.totpEnrolled ? 'yes' : 'no', a.disabledAt === null ? 'no' : 'yes', lockedUntil(i) === null ? 'no' : `until ${lockedUntil(i)}`]),
  );
}

const ended = ({ sessions, grants }: Ended) => `${count(sessions, 'session', 'sessions')} and ${count(grants, 'grant', 'grants')} ended`;

async function removeUser(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'user remove', positionals: ['username'], options: {} });
  const removed = await (await ctx.userAdmin()).remove(CLI_OPERATOR, positionals[0]!);
  // Resource servers following the revocation feed drop the user's live JWTs at once (account-disabled and session-revoked events).
  ctx.print(`removed user ${removed.account.username}: ${ended(removed)}, access tokens revoked`);
}

async function setUserDisabled(sub: 'disable' | 'enable', args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: `user ${sub}`, positionals: ['username'], options: {} });
  const admin = await ctx.userAdmin();
  if (sub === 'disable') {
    const account = await admin.disable(CLI_OPERATOR, positionals[0]!);
    ctx.print(`disabled user ${account.username}: sign-in refused; ${ended(account.ended)}, access tokens revoked`);
  } else {
    const account = await admin.enable(CLI_OPERATOR, positionals[0]!);
    ctx.print(`enabled user ${account.username}: they may sign in again (no earlier session comes back)`);
  }
}

async function setPassword(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'user passwd';
  const { positionals, values } = parseCommand(args, { command, positionals: ['username'], options: { 'password-stdin': { type: 'boolean' } } });
  if (!values['password-stdin']) throw new UsageError(`${command}: missing required option --password-stdin (the password is read from standard input)`);
  const password = readPassword(ctx.io.stdin);
  const account = await (await ctx.userAdmin()).setPassword(CLI_OPERATOR, positionals[0]!, password);
  ctx.print(`set a new password for ${account.username}; lockouts cleared; ${ended(account.ended)}`);
}

async function unlockUser(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'user unlock', positionals: ['username'], options: {} });
  const { account, cleared } = await (await ctx.userAdmin()).unlock(CLI_OPERATOR, positionals[0]!);
  ctx.print(`unlocked ${account.username} (${cleared} recorded ${cleared === 1 ? 'failure' : 'failures'} cleared)`);
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

async function listSessions(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, { command: 'user sessions', positionals: ['username'], options: { json: { type: 'boolean' } } });
  const { account, sessions } = await (await ctx.userAdmin()).listSessions(positionals[0]!);
  if (values.json) {
    ctx.printJson({ items: sessions.map(sessionJson) });
    return;
  }
  if (sessions.length === 0) {
    ctx.print(`no sessions for ${account.username}`);
    return;
  }
  printTable(
    ctx,
    ['SIGNED IN', 'LAST USED', 'EXPIRES', 'CLIENTS'],
    sessions.map((s) => [iso(s.signedInAt) ?? '-', iso(s.lastUsedAt) ?? '-', iso(s.expiresAt) ?? '-', s.clients.map((c) => c.clientId).join(',') || '-']),
  );
}

async function signOutAll(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'user signout-all', positionals: ['username'], options: {} });
  const { account, sessions, grants } = await (await ctx.userAdmin()).signOutEverywhere(CLI_OPERATOR, positionals[0]!);
  ctx.print(`signed ${account.username} out everywhere: ${sessions} ${sessions === 1 ? 'session' : 'sessions'} and ${grants} ${grants === 1 ? 'grant' : 'grants'} ended`);
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

async function resetMfa(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'user reset-mfa', positionals: ['username'], options: {} });
  const removed = await (await ctx.userAdmin()).resetSecondFactors(CLI_OPERATOR, positionals[0]!);
  const parts = [
    removed.totp ? 'TOTP' : 'no TOTP',
    count(removed.devices, 'device', 'devices'),
    count(removed.passkeys, 'passkey', 'passkeys'),
    count(removed.recoveryCodes, 'recovery code', 'recovery codes'),
  ];
  ctx.print(`reset the second factors of ${removed.account.username}: removed ${parts.join(', ')}; ${ended(removed)}; they enrol again at the next sign-in`);
}

async function resetLink(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, { command: 'user reset-link', positionals: ['username'], options: { json: { type: 'boolean' } } });
  const stores = await ctx.stores();
  const issued = await issuePasswordReset({ ...stores, audit: ctx.audit, issuer: ctx.config.issuer }, CLI_OPERATOR, positionals[0]!);
  const expiresAt = new Date(issued.expiresAt).toISOString();
  if (values.json) {
    ctx.printJson({ username: issued.account.username, url: issued.url, expires_at: expiresAt });
    return;
  }
  ctx.print(`one-time password-reset link for ${issued.account.username} (valid until ${expiresAt}; it replaces any earlier link):`);
  ctx.print(issued.url);
}

async function enrolTotp(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, { command: 'user totp', positionals: ['username'], options: { json: { type: 'boolean' } } });
  const username = positionals[0]!;
  const { accounts } = await ctx.stores();
  const account = await accounts.findByUsername(username);
  if (!account) throw new CliError(`unknown user "${username}"`);
  const totp = createTotp();
  const secret = totp.generateSecret();
  await accounts.setTotpSecret(account.id, secret);
  // Same issuer as the enrolment page, so authenticator apps group the entries together.
  const uri = totp.uri(secret, { issuer: `Gatehouse (${new URL(ctx.config.issuer).host})`, label: account.username });
  if (values.json) {
    ctx.printJson({ otpauth_uri: uri });
    return;
  }
  ctx.print(`TOTP ${account.totpEnrolled ? 're-enrolled' : 'enrolled'} for ${account.username}; any previous authenticator entry stops working.`);
  ctx.print('Scan this QR code with an authenticator app, or enter the URI by hand:');
  ctx.print('');
  const qr = await qrTerminal(uri);
  ctx.io.stdout(qr.endsWith('\n') ? qr : `${qr}\n`);
  ctx.print(uri);
}
