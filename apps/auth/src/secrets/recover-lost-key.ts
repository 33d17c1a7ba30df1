/**
 * Recovery from a lost encryption key (`authctl secrets recover-lost-key`): what was sealed
 * under it is given up and replaced. Rules:
 * - it acts only on the sealed values that no key of the ring opens (every value of every
 *   sealed column is tried, sealed-columns.ts); everything the ring opens is left alone, so a
 *   second run finds nothing to do;
 * - a user whose TOTP secret is lost has every second factor reset as `user reset-mfa` does
 *   (admin/user-admin.ts: TOTP, authenticator devices, passkeys and recovery codes removed, every
 *   session, grant and refresh token ended) and enrols again at the next sign-in, after the
 *   password. Devices and passkeys hold only public keys and were not lost, but an account without
 *   TOTP enrols a new one after the password step anyway, so keeping them would protect nothing;
 *   the reset leaves the account in the one state an operator already knows;
 * - a lost private signing key is deleted (its public key came from it: it can no longer be
 *   published), and a new active key is created when none is left (keys/signing-keys.ts); JWTs
 *   signed by the lost keys stop verifying once resource servers refresh the JWKS, and clients
 *   get new ones with their refresh tokens (the provider's, unaffected);
 * - a client whose current secret is lost gets a new random secret, returned once in the result
 *   for the operator to hand over (never logged); a lost previous secret (rotation grace period)
 *   is dropped, and the grace period ends;
 * - an upstream identity provider whose client secret or private key is lost cannot be given a new
 *   one here (the upstream issued it): the lost value is removed and the provider disabled, and the
 *   operator sets a new credential (`authctl idp update <slug> --client-secret-file ... --enable`);
 * - a pending TOTP enrollment's secret or unsaved recovery codes that are lost are dropped (the
 *   enrollment starts over with a new key; accounts/totp-enrollment-store.ts);
 * - every write is compare-and-set on the value read, so a secret a running server changed
 *   meanwhile is not touched;
 * - with `dryRun` nothing changes: the result names what a run would reset (usernames, key ids,
 *   client ids); otherwise each change is audited as its own verb is (`admin.user.second_factors_reset`,
 *   `admin.client.secret_rotated` with grace 0, `keys.removed`, `identity_provider.updated`), then
 *   `secrets.lost_key_recovered`.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AccountStore } from '../accounts/account-store.ts';
import { type UserAdmin } from '../admin/user-admin.ts';
import { actorFields, type Actor } from '../audit/actor.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { KeyStore } from '../keys/key-store.ts';
import { ensureSigningKey } from '../keys/signing-keys.ts';
import type { Logger } from '../logging/logger.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { AuthSchema } from '../storage/schema.ts';
import { forEachSealed, replaceSealed, SEALED_COLUMNS, type SealedColumn, type SealedRow } from './sealed-columns.ts';

export interface RecoverLostKeyDeps {
  db: Kysely<AuthSchema>;
  box: SecretBox;
  accounts: Pick<AccountStore, 'findById'>;
  keys: KeyStore;
  /** Resets a user's second factors and ends their sessions (`user reset-mfa`). */
  users: Pick<UserAdmin, 'resetSecondFactors'>;
  logger: Logger;
  audit: Auditor;
  clock: () => number;
  actor: Actor;
  dryRun?: boolean;
}

export interface RecoveredClient {
  clientId: string;
  /** The new secret (absent on a dry run, or when only a replaced secret was lost). */
  clientSecret?: string;
  /** Only the previous secret of a rotation was lost: dropped, the current one kept. */
  previousOnly: boolean;
}

export interface LostKeyRecovery {
  /** Usernames whose second factors were (or would be) reset, in order. */
  users: string[];
  /** Key ids of the signing keys deleted (or that would be). */
  signingKeys: string[];
  /** Whether a new signing key was created because none was left. */
  newSigningKey: boolean;
  clients: RecoveredClient[];
  /** Slugs of the identity providers whose credential was (or would be) removed and which were disabled. */
  identityProviders: string[];
}

/** The rows of a column that no key of the ring opens. */
async function lostRows(db: Kysely<AuthSchema>, box: SecretBox, column: SealedColumn): Promise<SealedRow[]> {
  const lost: SealedRow[] = [];
  await forEachSealed(db, column, { batchSize: 500 }, async (rows) => {
    for (const row of rows) {
      try {
        box.open(row.sealed);
      } catch {
        lost.push(row);
      }
    }
  });
  return lost;
}

const columnOf = (table: SealedColumn['table'], column: string) => SEALED_COLUMNS.find((c) => c.table === table && c.column === column)!;

export async function recoverLostKey(deps: RecoverLostKeyDeps): Promise<LostKeyRecovery> {
  const { db, box } = deps;
  const result: LostKeyRecovery = { users: [], signingKeys: [], newSigningKey: false, clients: [], identityProviders: [] };

  // Signing keys first: the key store opens every key it lists, so the lost ones must be gone before it is used.
  for (const row of await lostRows(db, box, columnOf('signing_keys', 'private_jwk_sealed'))) {
    if (!deps.dryRun) {
      const deleted = await db.deleteFrom('signing_keys').where('kid', '=', row.rowKey).where('private_jwk_sealed', '=', row.sealed).executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) continue;
      deps.logger.info({ event: 'keys.removed', kid: row.rowKey }, 'signing key removed: its private key cannot be decrypted');
    }
    result.signingKeys.push(row.rowKey);
  }
  if (!deps.dryRun && result.signingKeys.length > 0) {
    const before = (await deps.keys.list()).length;
    await ensureSigningKey(deps.keys, deps.clock());
    result.newSigningKey = (await deps.keys.list()).length > before;
  }

  for (const row of await lostRows(db, box, columnOf('accounts', 'totp_secret_sealed'))) {
    const account = await deps.accounts.findById(row.rowKey);
    if (!account) continue;
    if (!deps.dryRun) await deps.users.resetSecondFactors(deps.actor, account.username);
    result.users.push(account.username);
  }
  result.users.sort();

  const lostCurrent = new Set<string>();
  for (const row of await lostRows(db, box, columnOf('clients', 'client_secret_sealed'))) {
    lostCurrent.add(row.rowKey);
    if (deps.dryRun) {
      result.clients.push({ clientId: row.rowKey, previousOnly: false });
      continue;
    }
    const clientSecret = randomBytes(32).toString('base64url');
    const now = deps.clock();
    const updated = await db
      .updateTable('clients')
      .set({ client_secret_sealed: box.seal(clientSecret), previous_secret_sealed: null, previous_secret_expires_at: null, secret_rotated_at: now, updated_at: now })
      .where('client_id', '=', row.rowKey)
      .where('client_secret_sealed', '=', row.sealed)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) continue;
    deps.audit.record('admin.client.secret_rotated', { ...actorFields(deps.actor), client_id: row.rowKey, grace_seconds: 0 });
    result.clients.push({ clientId: row.rowKey, clientSecret, previousOnly: false });
  }
  const previous = columnOf('clients', 'previous_secret_sealed');
  for (const row of await lostRows(db, box, previous)) {
    if (lostCurrent.has(row.rowKey)) continue;
    if (!deps.dryRun && !(await replaceSealed(db, previous, row, null))) continue;
    if (!deps.dryRun) await db.updateTable('clients').set({ previous_secret_expires_at: null }).where('client_id', '=', row.rowKey).where('previous_secret_sealed', 'is', null).execute();
    result.clients.push({ clientId: row.rowKey, previousOnly: true });
  }

  const lostProviders = new Set<string>();
  for (const name of ['client_secret_sealed', 'private_jwk_sealed'] as const) {
    const column = columnOf('identity_providers', name);
    for (const row of await lostRows(db, box, column)) {
      if (!deps.dryRun) {
        if (!(await replaceSealed(db, column, row, null))) continue;
        await db.updateTable('identity_providers').set({ enabled: 0, updated_at: deps.clock() }).where('slug', '=', row.rowKey).execute();
        deps.audit.record('identity_provider.updated', { ...actorFields(deps.actor), provider: row.rowKey, fields: `enabled,${name === 'client_secret_sealed' ? 'client_secret' : 'private_jwk'}` });
      }
      lostProviders.add(row.rowKey);
    }
  }
  result.identityProviders = [...lostProviders].sort();

  // A pending TOTP enrollment starts over with a new key at the next sign-in; recovery codes not
  // yet confirmed saved are not shown again (the stored hashes still work; new ones can be made).
  for (const name of ['secret_sealed', 'recovery_codes_sealed'] as const) {
    const column = columnOf('totp_enrollments', name);
    for (const row of await lostRows(db, box, column)) if (!deps.dryRun) await replaceSealed(db, column, row, null);
  }

  if (!deps.dryRun) {
    deps.audit.record('secrets.lost_key_recovered', {
      ...actorFields(deps.actor),
      users: result.users.length,
      signing_keys: result.signingKeys.length,
      clients: result.clients.filter((c) => !c.previousOnly).length,
      ...(result.identityProviders.length > 0 ? { identity_providers: result.identityProviders.length } : {}),
    });
  }
  return result;
}
