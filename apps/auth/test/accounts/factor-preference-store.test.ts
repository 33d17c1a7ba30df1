/**
 * The preferred second factor on SQLite and PostgreSQL (accounts/factor-preference-store.ts):
 * none at first, the user's choice and the last used kept apart, a stored value that is not a
 * factor reads as none, and the row goes with its account.
 */
import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createFactorPreferenceStore } from '../../src/accounts/factor-preference-store.ts';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 1));

describe.each(TEST_ENGINES)('factor preference store on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('keeps the preferred factor and the last used one apart; the row goes with its account', async () => {
    const clock = { now: 7_000_000 };
    const store = createFactorPreferenceStore(database.db, () => clock.now);
    const accounts = createAccountStore(database.db, box);
    const account = await accounts.create({ username: `pref-${engine}`, email: 'p@example.com', name: 'Pref', groups: [], passwordHash: 'x' });

    expect(await store.find(account.id)).toEqual({ preferred: null, lastUsed: null, lastUsedAt: null });
    await store.recordUsed(account.id, 'push');
    expect(await store.find(account.id)).toEqual({ preferred: null, lastUsed: 'push', lastUsedAt: 7_000_000 });
    await store.setPreferred(account.id, 'passkey');
    clock.now += 1_000;
    await store.recordUsed(account.id, 'totp');
    expect(await store.find(account.id)).toEqual({ preferred: 'passkey', lastUsed: 'totp', lastUsedAt: 7_001_000 });
    await store.setPreferred(account.id, null);
    expect(await store.find(account.id)).toEqual({ preferred: null, lastUsed: 'totp', lastUsedAt: 7_001_000 });

    await database.db.updateTable('factor_preferences').set({ preferred: 'sms', last_used: 'carrier pigeon' }).where('account_id', '=', account.id).execute();
    expect(await store.find(account.id)).toEqual({ preferred: null, lastUsed: null, lastUsedAt: 7_001_000 });

    await accounts.remove(account.username);
    expect(await database.db.selectFrom('factor_preferences').selectAll().execute()).toEqual([]);
  });
});
