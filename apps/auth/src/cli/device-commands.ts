/**
 * `authctl user devices | device-remove | recovery-codes`: a user's push authenticators and
 * recovery codes. Rules:
 * - devices are listed with id, name and dates, never key material;
 * - a device is removed only when it belongs to the named user;
 * - `recovery-codes` issues a fresh set of 10 and prints it once; the old set stops working.
 */
import type { Account } from '../accounts/account-store.ts';
import { parseCommand, UsageError } from './args.ts';
import { CliError, type CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const DEVICE_USAGE = [
  '  user devices <username> [--json]     the push authenticator devices of a user',
  '  user device-remove <username> <device_id>',
  '  user recovery-codes <username> [--json]  issue 10 new recovery codes (the old ones stop working)',
];

export const DEVICE_SUBCOMMANDS: ReadonlySet<string> = new Set(['devices', 'device-remove', 'recovery-codes']);

export async function runDeviceCommand(sub: string, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'devices':
      return listDevices(args, ctx);
    case 'device-remove':
      return removeDevice(args, ctx);
    case 'recovery-codes':
      return recoveryCodes(args, ctx);
    default:
      throw new UsageError(`unknown command "user ${sub}"`);
  }
}

async function findUser(ctx: CliContext, username: string): Promise<Account> {
  const { accounts } = await ctx.stores();
  const account = await accounts.findByUsername(username);
  if (!account) throw new CliError(`unknown user "${username}"`);
  return account;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

async function listDevices(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, { command: 'user devices', positionals: ['username'], options: { json: { type: 'boolean' } } });
  const account = await findUser(ctx, positionals[0]!);
  const { devices } = await ctx.stores();
  const all = await devices.listByAccount(account.id);
  if (values.json) {
    ctx.printJson(all.map((d) => ({ id: d.id, name: d.name, created_at: iso(d.createdAt), last_used_at: iso(d.lastUsedAt) })));
    return;
  }
  if (all.length === 0) {
    ctx.print(`no devices for ${account.username}`);
    return;
  }
  printTable(ctx, ['ID', 'NAME', 'CREATED', 'LAST_USED'], all.map((d) => [d.id, d.name, iso(d.createdAt)!, iso(d.lastUsedAt) ?? '-']));
}

async function removeDevice(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'user device-remove', positionals: ['username', 'device_id'], options: {} });
  const account = await findUser(ctx, positionals[0]!);
  const deviceId = positionals[1]!;
  const { devices } = await ctx.stores();
  if (!(await devices.remove(account.id, deviceId))) throw new CliError(`user "${account.username}" has no device "${deviceId}"`);
  ctx.print(`removed device ${deviceId} of ${account.username}`);
}

async function recoveryCodes(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, { command: 'user recovery-codes', positionals: ['username'], options: { json: { type: 'boolean' } } });
  const account = await findUser(ctx, positionals[0]!);
  const { recoveryCodes: store } = await ctx.stores();
  const codes = await store.replace(account.id);
  if (values.json) {
    ctx.printJson({ username: account.username, recovery_codes: codes });
    return;
  }
  ctx.print(`new recovery codes for ${account.username}; the previous ones no longer work.`);
  ctx.print('Each works once. Hand them over securely: they are not shown again.');
  for (const code of codes) ctx.print(code);
}
