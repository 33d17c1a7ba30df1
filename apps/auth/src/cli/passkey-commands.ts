/**
 * `authctl user passkeys <username> [--remove <id>]`: a user's WebAuthn credentials. Rules:
 * - credentials are listed with id, name, kind (device-bound or synced) and dates, never key
 *   material or counters;
 * - `--remove` removes one credential only when it belongs to the named user; the passkey stops
 *   signing in at once (every login looks the credential up).
 */
import { parseCommand } from './args.ts';
import { CliError, type CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const PASSKEY_USAGE = [
  '  user passkeys <username> [--json]    the passkeys and security keys of a user',
  '  user passkeys <username> --remove <id>  remove one of them (it stops signing in at once)',
];

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export async function runPasskeyCommand(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, {
    command: 'user passkeys',
    positionals: ['username'],
    options: { json: { type: 'boolean' }, remove: { type: 'string' } },
  });
  const { accounts, passkeys } = await ctx.stores();
  const account = await accounts.findByUsername(positionals[0]!);
  if (!account) throw new CliError(`unknown user "${positionals[0]}"`);
  if (values.remove !== undefined) {
    if (!(await passkeys.remove(account.id, values.remove))) throw new CliError(`user "${account.username}" has no passkey "${values.remove}"`);
    if (values.json) ctx.printJson({ removed: values.remove });
    else ctx.print(`removed passkey ${values.remove} of ${account.username}`);
    return;
  }
  const all = await passkeys.listByAccount(account.id);
  if (values.json) {
    ctx.printJson(
      all.map((p) => ({ id: p.id, name: p.name, kind: p.deviceType === 'multiDevice' ? 'synced' : 'device-bound', created_at: iso(p.createdAt), last_used_at: iso(p.lastUsedAt) })),
    );
    return;
  }
  if (all.length === 0) {
    ctx.print(`no passkeys for ${account.username}`);
    return;
  }
  printTable(
    ctx,
    ['ID', 'NAME', 'KIND', 'CREATED', 'LAST_USED'],
    all.map((p) => [p.id, p.name, p.deviceType === 'multiDevice' ? 'synced' : 'device-bound', iso(p.createdAt)!, iso(p.lastUsedAt) ?? '-']),
  );
}
