/**
 * `authctl user ...`. Rules:
 * - passwords are read from standard input only (never argv, which other users can see);
 * - a password has 12 to 128 characters (Unicode code points; a run of spaces counts as one for
 *   the minimum), any printable character allowed, no composition rule (ASVS 4.0.3 V2.1.1,
 *   2.1.2, 2.1.4, 2.1.9); it is hashed exactly as typed, never trimmed or truncated;
 * - output never contains a password or its hash; `user totp` prints the enrolment URI, which is its purpose.
 */
import { hashPassword } from '../accounts/password.ts';
import { disableAccount, enableAccount, revokeEverythingOf } from '../accounts/disable-account.ts';
import { createTotp } from '../mfa/totp.ts';
import { qrTerminal } from '../mfa/qr.ts';
import { parseCommand, required, UsageError } from './args.ts';
import { CliError, type CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 128;

export const USER_USAGE = [
  '  user add <username> --email <e> --name <n> [--groups a,b] --password-stdin [--json]',
  '  user list [--json]',
  '  user remove <username>',
  '  user disable <username>              no more sign-ins; ends their sessions and tokens now',
  '  user enable <username>',
  '  user totp <username> [--json]        enrol or re-enrol TOTP, prints the otpauth:// URI and a QR code',
];

export async function runUserCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'add':
      return addUser(args, ctx);
    case 'list':
      return listUsers(args, ctx);
    case 'remove':
      return removeUser(args, ctx);
    case 'disable':
    case 'enable':
      return setUserDisabled(sub, args, ctx);
    case 'totp':
      return enrolTotp(args, ctx);
    default:
      throw new UsageError(sub ? `unknown command "user ${sub}"` : 'user: missing subcommand (add, list, remove, disable, enable, totp)');
  }
}

function readPassword(stdin: string): string {
  const password = stdin.replace(/\r?\n$/, '');
  if (!password) throw new CliError('password is empty (pipe it on standard input)');
  if ([...password.replace(/ {2,}/g, ' ')].length < MIN_PASSWORD_LENGTH) throw new CliError(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if ([...password].length > MAX_PASSWORD_LENGTH) throw new CliError(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
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
  const { accounts } = await ctx.stores();
  const account = await accounts.create({ username: positionals[0]!, email, name, groups, passwordHash: await hashPassword(password) });
  if (values.json) {
    ctx.printJson({ id: account.id, username: account.username, email: account.email, name: account.name, groups: account.groups });
  } else {
    ctx.print(`created user ${account.username} (id ${account.id})`);
  }
}

async function listUsers(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'user list', positionals: [], options: { json: { type: 'boolean' } } });
  const { accounts } = await ctx.stores();
  const all = await accounts.list();
  if (values.json) {
    ctx.printJson(
      all.map((a) => ({
        id: a.id,
        username: a.username,
        email: a.email,
        name: a.name,
        groups: a.groups,
        totp_enrolled: a.totpEnrolled,
        disabled: a.disabledAt !== null,
        created_at: new Date(a.createdAt).toISOString(),
      })),
    );
    return;
  }
  if (all.length === 0) {
    ctx.print('no users');
    return;
  }
  printTable(ctx, ['USERNAME', 'EMAIL', 'NAME', 'GROUPS', 'TOTP'], all.map((a) => [a.username, a.email, a.name, a.groups.join(','), a.totpEnrolled ? 'yes' : 'no']));
}

async function removeUser(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'user remove', positionals: ['username'], options: {} });
  const username = positionals[0]!;
  const { accounts, revocations } = await ctx.stores();
  const account = await accounts.findByUsername(username);
  if (!account || !(await accounts.remove(username))) throw new CliError(`unknown user "${username}"`);
  // Resource servers following the revocation feed drop the user's live JWTs at once
  // (an account-disabled event); introspection already finds no user.
  await revokeEverythingOf({ revocations, clock: ctx.now, accessTokenTtl: ctx.config.accessTokenTtl }, account.id);
  ctx.print(`removed user ${username.toLowerCase()}`);
}

async function setUserDisabled(sub: 'disable' | 'enable', args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: `user ${sub}`, positionals: ['username'], options: {} });
  const username = positionals[0]!;
  const { accounts, revocations } = await ctx.stores();
  const deps = { accounts, revocations, clock: ctx.now, accessTokenTtl: ctx.config.accessTokenTtl };
  const account = sub === 'disable' ? await disableAccount(deps, username) : await enableAccount(deps, username);
  if (!account) throw new CliError(`unknown user "${username}"`);
  ctx.print(sub === 'disable' ? `disabled user ${account.username}: sign-in refused, sessions and tokens ended` : `enabled user ${account.username}`);
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
