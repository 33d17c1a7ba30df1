/**
 * `authctl secrets rekey` is resumable and online (secrets/rekey.ts), on SQLite and PostgreSQL:
 * - a run interrupted after its first batch leaves every value readable by the ring, and the next
 *   run finishes the rest only: every value ends under the first key, none lost or changed;
 * - a server that changes a sealed value while the rekey runs (a TOTP re-enrolment, a client
 *   secret rotation, between the rekey's read and its write) keeps its value: the rekey's stale
 *   re-encryption is not written over it, and the new value opens under the first key.
 * The interleavings come through the function's own dependencies: its progress callback (the
 * interruption) and its database handle (a Kysely plugin that runs the writer once the rekey's
 * read has returned, before the rekey sees its rows).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { loadConfig } from '../../src/config/config.ts';
import { createSecretBox, sealedKeyId, secretBoxKeyId, type SecretBox } from '../../src/crypto/secret-box.ts';
import { ensureSigningKey } from '../../src/keys/signing-keys.ts';
import { rekeySecrets, type RekeyProgress } from '../../src/secrets/rekey.ts';
import { columnName, SEALED_COLUMNS } from '../../src/secrets/sealed-columns.ts';
import { createAuthServices, type AuthServices } from '../../src/services.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

const OLD = randomBytes(32);
const NEW = randomBytes(32);
const b64 = (key: Buffer) => key.toString('base64url');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function services(database: Awaited<ReturnType<typeof openAuthDatabase>>, keys: Buffer[]): AuthServices {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-rekey-'));
  dirs.push(dir);
  return createAuthServices(loadConfig({ AUTH_DATA_DIR: dir, AUTH_COOKIE_KEYS: 'c'.repeat(32), AUTH_ENCRYPTION_KEYS: keys.map(b64).join(',') }), database);
}

/** Every sealed value, `table.column:row` → what it opens to under `box`, and how many each key id seals. */
async function survey(db: Kysely<AuthSchema>, box: SecretBox) {
  const values: Record<string, string> = {};
  const byKey: Record<string, Record<string, number>> = {};
  for (const c of SEALED_COLUMNS) {
    const { rows } = await sql<{ k: string; v: string }>`select ${sql.ref(c.key)} as "k", ${sql.ref(c.column)} as "v" from ${sql.table(c.table)} where ${sql.ref(c.column)} is not null`.execute(db);
    const counts: Record<string, number> = {};
    for (const row of rows) {
      values[`${columnName(c)}:${row.k}`] = box.open(row.v);
      const id = String(sealedKeyId(row.v));
      counts[id] = (counts[id] ?? 0) + 1;
    }
    byKey[columnName(c)] = counts;
  }
  return { values, byKey };
}

const id = (key: Buffer) => secretBoxKeyId(key);

describe.each(TEST_ENGINES)('secrets rekey on %s', (engine) => {
  let target: TestDatabase;
  let database: Awaited<ReturnType<typeof openAuthDatabase>>;
  let accountIds: string[];
  const clientSecrets: Record<string, string> = {};

  beforeEach(async () => {
    target = await createTestDatabase(engine);
    database = await openAuthDatabase(target.url);
    // Everything sealed under OLD, as before the operator put NEW first in the ring.
    const old = services(database, [OLD]);
    await ensureSigningKey(old.keys, Date.now());
    accountIds = [];
    for (const name of ['ann', 'bob', 'cid', 'dee', 'eve']) {
      const account = await old.accounts.create({ username: name, email: `${name}@example.com`, name, groups: [], passwordHash: 'x' });
      await old.accounts.setTotpSecret(account.id, `TOTP-${name.toUpperCase()}`);
      accountIds.push(account.id);
    }
    for (const clientId of ['app-a', 'app-b', 'app-c']) {
      clientSecrets[clientId] = `${clientId}-secret-0123456789abcdef`;
      await old.clients.create({ clientId, firstParty: true, redirectUris: ['http://127.0.0.1:6/cb'], authMethod: 'client_secret_basic', clientSecret: clientSecrets[clientId], grantTypes: ['authorization_code'] });
    }
    // app-c rotated: its replaced secret waits in previous_secret_sealed for its grace period.
    const rotated = await old.clients.rotateSecret('app-c', 3_600_000);
    clientSecrets['app-c'] = rotated.clientSecret;
  });
  afterEach(async () => {
    await database.close();
    await target.drop();
  });

  it('resumable: a run stopped after its first batch leaves everything readable; the next run re-encrypts only the rest, and nothing is lost', async () => {
    const ring = createSecretBox([NEW, OLD]);
    const before = await survey(database.db, ring);
    expect(Object.keys(before.values)).toHaveLength(1 + 5 + 3 + 1);
    expect(before.byKey).toEqual({
      'signing_keys.private_jwk_sealed': { [id(OLD)]: 1 },
      'accounts.totp_secret_sealed': { [id(OLD)]: 5 },
      'clients.client_secret_sealed': { [id(OLD)]: 3 },
      'clients.previous_secret_sealed': { [id(OLD)]: 1 },
      'identity_providers.client_secret_sealed': {},
      'identity_providers.private_jwk_sealed': {},
      'totp_enrollments.secret_sealed': {},
      'totp_enrollments.recovery_codes_sealed': {},
    });

    // Interrupted (a crash, a lost connection) after the first batch of TOTP secrets was written.
    const progress: RekeyProgress[] = [];
    const interrupted = rekeySecrets({
      db: database.db,
      box: ring,
      batchSize: 2,
      onProgress: (p) => {
        progress.push({ ...p });
        if (p.column.column === 'totp_secret_sealed') throw new Error('interrupted');
      },
    });
    await expect(interrupted).rejects.toThrow('interrupted');
    expect(progress.map((p) => [columnName(p.column), p.rekeyed, p.remaining])).toEqual([
      ['signing_keys.private_jwk_sealed', 1, 1],
      ['accounts.totp_secret_sealed', 2, 5],
    ]);
    const halfway = await survey(database.db, ring);
    expect(halfway.byKey).toEqual({
      'signing_keys.private_jwk_sealed': { [id(NEW)]: 1 },
      'accounts.totp_secret_sealed': { [id(NEW)]: 2, [id(OLD)]: 3 },
      'clients.client_secret_sealed': { [id(OLD)]: 3 },
      'clients.previous_secret_sealed': { [id(OLD)]: 1 },
      'identity_providers.client_secret_sealed': {},
      'identity_providers.private_jwk_sealed': {},
      'totp_enrollments.secret_sealed': {},
      'totp_enrollments.recovery_codes_sealed': {},
    });
    expect(halfway.values).toEqual(before.values);

    // Run again: it takes only what is left, the values already under NEW are not read again.
    const resumed = await rekeySecrets({ db: database.db, box: ring, batchSize: 2 });
    expect(resumed.columns.map((c) => [columnName(c.column), c.rekeyed, c.skipped, c.unreadable.size])).toEqual([
      ['signing_keys.private_jwk_sealed', 0, 0, 0],
      ['accounts.totp_secret_sealed', 3, 0, 0],
      ['clients.client_secret_sealed', 3, 0, 0],
      ['clients.previous_secret_sealed', 1, 0, 0],
      ['identity_providers.client_secret_sealed', 0, 0, 0],
      ['identity_providers.private_jwk_sealed', 0, 0, 0],
      ['totp_enrollments.secret_sealed', 0, 0, 0],
      ['totp_enrollments.recovery_codes_sealed', 0, 0, 0],
    ]);
    expect({ keyId: resumed.keyId, rekeyed: resumed.rekeyed, skipped: resumed.skipped, unreadable: resumed.unreadable, problem: resumed.problem }).toEqual({
      keyId: id(NEW),
      rekeyed: 7,
      skipped: 0,
      unreadable: 0,
      problem: undefined,
    });

    // OLD can leave the ring: NEW alone opens every value, and each is what it was.
    const after = await survey(database.db, createSecretBox(NEW));
    expect(after.values).toEqual(before.values);
    expect(Object.values(after.byKey)).toEqual([{ [id(NEW)]: 1 }, { [id(NEW)]: 5 }, { [id(NEW)]: 3 }, { [id(NEW)]: 1 }, {}, {}, {}, {}]);
    const server = services(database, [NEW]);
    expect(await Promise.all(accountIds.map((a) => server.accounts.getTotpSecret(a)))).toEqual(['TOTP-ANN', 'TOTP-BOB', 'TOTP-CID', 'TOTP-DEE', 'TOTP-EVE']);
    expect((await server.clients.find('app-c'))?.clientSecret).toBe(clientSecrets['app-c']);
    expect((await rekeySecrets({ db: database.db, box: ring })).rekeyed).toBe(0);
  });

  it('online: a TOTP re-enrolment and a client secret rotation made while the rekey runs survive it, and open under the first key', async () => {
    const ring = createSecretBox([NEW, OLD]);
    const before = await survey(database.db, ring);
    // A running server, its keyring already NEW first.
    const server = services(database, [NEW, OLD]);
    const [ann] = accountIds;
    let rotated: string | undefined;
    const writes: string[] = [];
    // After the rekey has read a page holding ann's TOTP secret (or app-b's secret), and before it
    // re-encrypts it, the server writes a new value through its stores.
    const concurrentWriter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        const rows = (args.result.rows ?? []) as { rowKey?: unknown; sealed?: unknown }[];
        const holds = (key: string) => rows.some((row) => row.rowKey === key && typeof row.sealed === 'string');
        if (holds(ann!) && !writes.includes('totp')) {
          writes.push('totp');
          await server.accounts.setTotpSecret(ann!, 'TOTP-ANN-RE-ENROLLED');
        }
        if (holds('app-b') && !writes.includes('rotate')) {
          writes.push('rotate');
          rotated = (await server.clients.rotateSecret('app-b', 3_600_000)).clientSecret;
        }
        return args.result;
      },
    };
    const result = await rekeySecrets({ db: database.db.withPlugin(concurrentWriter), box: ring, batchSize: 2 });
    expect(writes).toEqual(['totp', 'rotate']);
    // The two values changed under the rekey were left as the server wrote them.
    expect(result.columns.map((c) => [columnName(c.column), c.rekeyed, c.skipped])).toEqual([
      ['signing_keys.private_jwk_sealed', 1, 0],
      ['accounts.totp_secret_sealed', 4, 1],
      ['clients.client_secret_sealed', 2, 1],
      // app-c's, and app-b's secret the rotation replaced (still under OLD, as it was).
      ['clients.previous_secret_sealed', 2, 0],
      ['identity_providers.client_secret_sealed', 0, 0],
      ['identity_providers.private_jwk_sealed', 0, 0],
      ['totp_enrollments.secret_sealed', 0, 0],
      ['totp_enrollments.recovery_codes_sealed', 0, 0],
    ]);

    const now = await survey(database.db, createSecretBox(NEW));
    expect(now.values).toEqual({
      ...before.values,
      [`accounts.totp_secret_sealed:${ann}`]: 'TOTP-ANN-RE-ENROLLED',
      'clients.client_secret_sealed:app-b': rotated,
      'clients.previous_secret_sealed:app-b': clientSecrets['app-b'],
    });
    expect(Object.values(now.byKey)).toEqual([{ [id(NEW)]: 1 }, { [id(NEW)]: 5 }, { [id(NEW)]: 3 }, { [id(NEW)]: 2 }, {}, {}, {}, {}]);
    const after = services(database, [NEW]);
    expect(await after.accounts.getTotpSecret(ann!)).toBe('TOTP-ANN-RE-ENROLLED');
    const appB = await after.clients.find('app-b');
    expect([appB?.clientSecret, appB?.previousClientSecret]).toEqual([rotated, clientSecrets['app-b']]);
  });

  it('online: a value written meanwhile by a server still sealing under the old key is skipped, and the next run takes it', async () => {
    const ring = createSecretBox([NEW, OLD]);
    // An instance not yet restarted with the new ring.
    const lagging = services(database, [OLD]);
    const [, bob] = accountIds;
    let written = false;
    const concurrentWriter: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        const rows = (args.result.rows ?? []) as { rowKey?: unknown; sealed?: unknown }[];
        if (!written && rows.some((row) => row.rowKey === bob && typeof row.sealed === 'string')) {
          written = true;
          await lagging.accounts.setTotpSecret(bob!, 'TOTP-BOB-RE-ENROLLED');
        }
        return args.result;
      },
    };
    const first = await rekeySecrets({ db: database.db.withPlugin(concurrentWriter), box: ring, batchSize: 2 });
    expect([first.rekeyed, first.skipped]).toEqual([9, 1]);
    expect((await survey(database.db, ring)).byKey['accounts.totp_secret_sealed']).toEqual({ [id(NEW)]: 4, [id(OLD)]: 1 });
    const second = await rekeySecrets({ db: database.db, box: ring });
    expect([second.rekeyed, second.skipped]).toEqual([1, 0]);
    expect(await services(database, [NEW]).accounts.getTotpSecret(bob!)).toBe('TOTP-BOB-RE-ENROLLED');
  });
});
