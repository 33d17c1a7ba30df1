import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { migrateToLatest } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { authMigrations } from '../../src/storage/migrations.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';

describe.each(TEST_ENGINES)('openAuthDatabase on %s', (engine) => {
  let target: TestDatabase;
  beforeAll(async () => {
    target = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await target.drop();
  });

  it('creates every table, and reopening applies nothing twice', async () => {
    const first = await openAuthDatabase(target.url);
    try {
      const tables = (await first.db.introspection.getTables()).map((t) => t.name).sort();
      expect(tables).toEqual([
        'account_links',
        'accounts',
        'audit_events',
        'auth_migrations',
        'auth_migrations_lock',
        'clients',
        'consents',
        'device_enrollments',
        'device_nonces',
        'devices',
        'email_changes',
        'factor_preferences',
        'identity_providers',
        'oidc_payloads',
        'passkey_challenges',
        'passkeys',
        'password_resets',
        'push_transactions',
        'recovery_codes',
        'regulation_failures',
        'scope_policies',
        'session_meta',
        'signing_keys',
        'token_revocations',
        'totp_enrollments',
      ]);
    } finally {
      await first.close();
    }

    const second = await openAuthDatabase(target.url);
    try {
      expect(await migrateToLatest(second.db as Kysely<unknown>, 'auth', authMigrations)).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
