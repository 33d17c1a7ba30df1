/**
 * `authctl keys ...`. Rules:
 * - a rotated-out key stays published for accessTokenTtl + idTokenTtl, so tokens it signed still verify;
 * - running servers notice the new key set by polling, no restart needed;
 * - only key ids and dates are printed, never key material.
 */
import { rotateSigningKeys } from '../keys/signing-keys.ts';
import type { SigningKey } from '../keys/key-store.ts';
import { parseCommand, UsageError } from './args.ts';
import type { CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const KEYS_USAGE = [
  '  keys rotate [--json]                 new signing key; the old ones stay published until their tokens expire',
  '  keys list [--json]',
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

async function rotate(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'keys rotate', positionals: [], options: { json: { type: 'boolean' } } });
  const { keys } = await ctx.stores();
  const keepForSeconds = ctx.config.accessTokenTtl + ctx.config.idTokenTtl;
  const nowMs = ctx.now();
  const result = await rotateSigningKeys(keys, { nowMs, keepForSeconds });
  const expiresAt = new Date(nowMs + keepForSeconds * 1000).toISOString();
  if (values.json) {
    ctx.printJson({ kid: result.kid, retired: result.retired, ...(result.retired.length ? { retired_expire_at: expiresAt } : {}) });
    return;
  }
  ctx.print(`new active signing key: ${result.kid}`);
  if (result.retired.length === 0) ctx.print('no previous key to retire');
  for (const kid of result.retired) ctx.print(`retired: ${kid} (published until ${expiresAt})`);
}

function status(key: SigningKey, activeKid: string | undefined, now: number): string {
  if (key.kid === activeKid) return 'active';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return key.retiredAt === null ? 'standby' : 'retired';
}

async function list(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'keys list', positionals: [], options: { json: { type: 'boolean' } } });
  const { keys } = await ctx.stores();
  const stored = await keys.list();
  const now = ctx.now();
  const activeKid = stored.find((k) => k.retiredAt === null)?.kid;
  const all = [...stored].sort((a, b) => Number(b.kid === activeKid) - Number(a.kid === activeKid));
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  if (values.json) {
    ctx.printJson(
      all.map((k) => ({
        kid: k.kid,
        alg: k.alg,
        status: status(k, activeKid, now),
        created_at: iso(k.createdAt),
        retired_at: iso(k.retiredAt),
        expires_at: iso(k.expiresAt),
      })),
    );
    return;
  }
  if (all.length === 0) {
    ctx.print('no signing keys (the server creates one at start, or run: authctl keys rotate)');
    return;
  }
  printTable(
    ctx,
    ['KID', 'ALG', 'STATUS', 'CREATED', 'EXPIRES'],
    all.map((k) => [k.kid, k.alg, status(k, activeKid, now), iso(k.createdAt)!, iso(k.expiresAt) ?? '-']),
  );
}
