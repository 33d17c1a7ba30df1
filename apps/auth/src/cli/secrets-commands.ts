/**
 * `authctl secrets ...`: the at-rest keyring's lifecycle (crypto/secret-box.ts, secrets/). Rules:
 * - `status` counts the sealed secrets of each column by the key they are under, and fails
 *   (exit 1, one line) when some are under a key the ring lacks;
 * - `rekey` re-encrypts every secret under the ring's first key, online and resumable
 *   (secrets/rekey.ts), printing its progress per column and a final count; `--dry-run` counts
 *   only; secrets no key opens are left alone and reported as one line with exit 1;
 * - `recover-lost-key` gives up what no key of the ring opens (secrets/recover-lost-key.ts); it
 *   changes nothing without `--yes`, and `--dry-run` names what it would reset; the new client
 *   secrets are printed once, here, and nowhere else;
 * - changes are audited with the actor `operator:cli`; no secret, key or key material is ever
 *   printed, only key ids.
 */
import { CLI_OPERATOR, actorFields } from '../audit/actor.ts';
import { recoverLostKey } from '../secrets/recover-lost-key.ts';
import { rekeySecrets } from '../secrets/rekey.ts';
import { columnName } from '../secrets/sealed-columns.ts';
import { LEGACY, surveySealed, unreadableProblem } from '../secrets/sealed-survey.ts';
import { parseCommand, UsageError } from './args.ts';
import { CliError, type CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const SECRETS_USAGE = [
  '  secrets status [--json]              how many sealed secrets (TOTP, signing keys, client secrets) are under each key of AUTH_ENCRYPTION_KEYS',
  '  secrets rekey [--dry-run]            re-encrypts every sealed secret under the first key of AUTH_ENCRYPTION_KEYS; safe while servers run, resumable',
  '  secrets recover-lost-key (--dry-run | --yes) [--json]',
  '                                       for secrets no key opens: resets those users\' second factors (they enrol again), deletes those signing',
  '                                       keys (a new one is made), gives those clients new secrets (printed once)',
];

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export async function runSecretsCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'status':
      return status(args, ctx);
    case 'rekey':
      return rekey(args, ctx);
    case 'recover-lost-key':
      return recover(args, ctx);
    default:
      throw new UsageError(sub ? `unknown command "secrets ${sub}"` : 'secrets: missing subcommand (status, rekey, recover-lost-key)');
  }
}

async function status(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'secrets status', positionals: [], options: { json: { type: 'boolean' } } });
  const { box } = await ctx.stores();
  const { db } = await ctx.database();
  const surveys = await surveySealed(db, box);
  const keyLabel = (id: string) => (id === LEGACY ? 'legacy (no key id)' : id === box.keyId ? `${id} (seals)` : box.keyIds.includes(id) ? `${id} (opens)` : `${id} (NOT IN RING)`);
  if (values.json) {
    ctx.printJson({
      key_id: box.keyId,
      key_ids: box.keyIds,
      columns: surveys.map((s) => ({
        column: columnName(s.column),
        total: s.total,
        by_key: Object.fromEntries(s.byKey),
        unreadable: Object.fromEntries(s.unreadable),
      })),
    });
  } else {
    ctx.print(`keyring: ${box.keyIds.map((id, i) => (i === 0 ? `${id} (seals)` : id)).join(', ')}`);
    const rows = surveys.flatMap((s) => [
      ...[...s.byKey].map(([id, n]) => [columnName(s.column), keyLabel(id), String(n)]),
      ...[...s.unreadable].map(([id, n]) => [columnName(s.column), id === LEGACY ? 'legacy, NO KEY OPENS IT' : keyLabel(id), String(n)]),
    ]);
    if (rows.length === 0) ctx.print('no sealed secrets');
    else printTable(ctx, ['COLUMN', 'KEY', 'SECRETS'], rows);
  }
  const problem = unreadableProblem(surveys, box);
  if (problem) throw new CliError(problem);
}

async function rekey(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'secrets rekey', positionals: [], options: { 'dry-run': { type: 'boolean' } } });
  const dryRun = values['dry-run'] === true;
  const { box } = await ctx.stores();
  const { db } = await ctx.database();
  const verb = dryRun ? 'would re-encrypt' : 're-encrypted';
  const result = await rekeySecrets({
    db,
    box,
    dryRun,
    onProgress: (p) => ctx.print(`${columnName(p.column)}: ${verb} ${p.rekeyed} of ${p.remaining}`),
  });
  if (!dryRun) ctx.audit.record('secrets.rekeyed', { ...actorFields(CLI_OPERATOR), key_id: result.keyId, rekeyed: result.rekeyed, unreadable: result.unreadable });
  const changed = result.skipped ? `; ${plural(result.skipped, 'secret was', 'secrets were')} changed meanwhile and left as written (run it again to take them)` : '';
  ctx.print(`${verb} ${plural(result.rekeyed, 'secret', 'secrets')} under key ${result.keyId}${changed}`);
  if (result.problem) throw new CliError(result.problem);
}

async function recover(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'secrets recover-lost-key';
  const { values } = parseCommand(args, { command, positionals: [], options: { 'dry-run': { type: 'boolean' }, yes: { type: 'boolean' }, json: { type: 'boolean' } } });
  const dryRun = values['dry-run'] === true;
  if (dryRun === (values.yes === true)) {
    throw new UsageError(`${command}: give --dry-run to see what would be reset, or --yes to reset it (second factors, signing keys and client secrets sealed under a key that is not in AUTH_ENCRYPTION_KEYS)`);
  }
  const stores = await ctx.stores();
  const { db } = await ctx.database();
  const result = await recoverLostKey({ db, box: stores.box, accounts: stores.accounts, keys: stores.keys, users: await ctx.userAdmin(), logger: ctx.logger, audit: ctx.audit, clock: ctx.now, actor: CLI_OPERATOR, dryRun });
  if (values.json) {
    ctx.printJson({
      dry_run: dryRun,
      users: result.users,
      signing_keys: result.signingKeys,
      new_signing_key: result.newSigningKey,
      clients: result.clients.map((c) => ({ client_id: c.clientId, ...(c.clientSecret ? { client_secret: c.clientSecret } : {}), previous_secret_only: c.previousOnly })),
      identity_providers: result.identityProviders,
    });
    return;
  }
  const would = dryRun ? 'would ' : '';
  const none = result.users.length + result.signingKeys.length + result.clients.length + result.identityProviders.length === 0;
  if (none) {
    ctx.print('nothing to recover: every sealed secret opens with AUTH_ENCRYPTION_KEYS');
    return;
  }
  ctx.print(`${dryRun ? 'would reset' : 'reset'} the second factors of ${plural(result.users.length, 'user', 'users')}${result.users.length ? ` (${result.users.join(', ')})` : ''}; they enrol again at the next sign-in`);
  ctx.print(
    `${would}${dryRun ? 'delete' : 'deleted'} ${plural(result.signingKeys.length, 'signing key', 'signing keys')}${result.signingKeys.length ? ` (${result.signingKeys.join(', ')})` : ''}` +
      (result.newSigningKey ? '; a new signing key was created' : ''),
  );
  for (const c of result.clients) {
    if (c.previousOnly) ctx.print(`client ${c.clientId}: ${would}${dryRun ? 'drop' : 'dropped'} its replaced secret (the grace period ends); its current secret is kept`);
    else if (c.clientSecret) ctx.print(`client ${c.clientId}: new secret ${c.clientSecret}`);
    else ctx.print(`client ${c.clientId}: would get a new secret`);
  }
  for (const slug of result.identityProviders) {
    ctx.print(`identity provider ${slug}: ${would}${dryRun ? 'remove' : 'removed'} its lost client secret or private key and ${dryRun ? 'disable' : 'disabled'} it; set a new one with authctl idp update ${slug}, then --enable`);
  }
  if (!dryRun && result.clients.some((c) => c.clientSecret)) ctx.print('The new client secrets are shown only now: hand each to its client, whose old secret no longer works.');
}
