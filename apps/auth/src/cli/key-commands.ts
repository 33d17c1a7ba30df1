/**
 * `authctl keys ...`. Rules:
 * - rotate makes a new key sign at once; the previous signing key retires and stays published
 *   until every token it signed has expired (key-policy.ts); pending keys are dropped;
 * - list shows every key's state (pending, active, retired, expired) and activation time,
 *   in JWKS order;
 * - running servers notice the new key set by polling, no restart needed;
 * - only key ids and dates are printed, never key material;
 * - both verbs go through the key service (admin/key-admin.ts), shared with the admin API;
 *   `--json` prints the admin API's body (admin/json/key-json.ts: a rotation, `{ items }`);
 *   a rotation is audited (`admin.keys.rotated`, actor `operator:cli`).
 */
import { CLI_OPERATOR } from '../audit/actor.ts';
import { keyJson, keyRotationJson } from '../admin/json/key-json.ts';
import { parseCommand, UsageError } from './args.ts';
import type { CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const KEYS_USAGE = [
  '  keys rotate [--json]                 new signing key now; the old one stays published until its tokens expire',
  '  keys list [--json]                   keys with their state (pending, active, retired) and activation time',
];

export async function runKeyCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'rotate':
      return rotate(args, ctx);
    case 'list':
      return list(args, ctx);
    default:
      throw new UsageError(sub ? `unknown command "keys ${sub}"` : 'keys: missing subcommand (rotate, list)');
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

async function rotate(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'keys rotate', positionals: [], options: { json: { type: 'boolean' } } });
  const result = await (await ctx.keyAdmin()).rotate(CLI_OPERATOR);
  const expiresAt = iso(result.retiredExpireAt)!;
  if (values.json) {
    ctx.printJson(keyRotationJson(result));
    return;
  }
  ctx.print(`new active signing key: ${result.kid}`);
  if (result.retired.length === 0) ctx.print('no previous key to retire');
  for (const kid of result.retired) ctx.print(`retired: ${kid} (published until ${expiresAt})`);
  for (const kid of result.discarded) ctx.print(`discarded pending key: ${kid} (it never signed)`);
}

async function list(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'keys list', positionals: [], options: { json: { type: 'boolean' } } });
  const states = await (await ctx.keyAdmin()).list();
  if (values.json) {
    ctx.printJson({ items: states.map(keyJson) });
    return;
  }
  if (states.length === 0) {
    ctx.print('no signing keys (the server creates one at start, or run: authctl keys rotate)');
    return;
  }
  printTable(
    ctx,
    ['KID', 'ALG', 'STATUS', 'CREATED', 'ACTIVATES', 'EXPIRES'],
    states.map((key) => [key.kid, key.alg, key.state, iso(key.createdAt)!, iso(key.activatesAt)!, iso(key.expiresAt) ?? '-']),
  );
}
