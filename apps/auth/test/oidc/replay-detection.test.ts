/**
 * oidc/replay-detection.ts with the adapter's insertOnce: a JWT id (per issuer) is unique once
 * until it expires, also when two servers (two providers, two connections to one database) are
 * asked at the same moment; an expired record is taken over.
 */
import { Provider } from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { createClientStore } from '../../src/clients/client-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createPayloadStore } from '../../src/oidc/payload-store.ts';
import { createOidcAdapter } from '../../src/oidc/adapter.ts';
import { detectReplaysOnce } from '../../src/oidc/replay-detection.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';

const box = createSecretBox(Buffer.alloc(32, 3));
const T = 1_790_000_000_000;

type Unique = (iss: string, jti: string, exp: number) => Promise<boolean>;

describe.each(TEST_ENGINES)('replay detection across servers on %s', (engine) => {
  let target: TestDatabase;
  const databases: Database<AuthSchema>[] = [];
  const clock = { now: T };
  beforeAll(async () => {
    target = await createTestDatabase(engine);
    databases.push(await openAuthDatabase(target.url), await openAuthDatabase(target.url));
  });
  afterAll(async () => {
    for (const database of databases) await database.close();
    await target.drop();
  });

  /** A server's ReplayDetection.unique, on its own connection. */
  function serverOn(database: Database<AuthSchema>): Unique {
    const adapter = createOidcAdapter({ payloads: createPayloadStore(database.db), db: database.db, clients: createClientStore(database.db, box), clock: () => clock.now, engine });
    const provider = new Provider('http://127.0.0.1:1', { adapter: adapter.adapterFactory as never, features: { devInteractions: { enabled: false } } });
    detectReplaysOnce(provider, () => clock.now);
    const model = provider.ReplayDetection as unknown as { unique: Unique };
    return (iss, jti, exp) => model.unique(iss, jti, exp);
  }

  it('answers true once for a jti, even to two servers asked at once', async () => {
    const [one, two] = [serverOn(databases[0]!), serverOn(databases[1]!)];
    const exp = T / 1000 + 60;
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all([one('client-a', `jti-${round}`, exp), two('client-a', `jti-${round}`, exp), one('client-a', `jti-${round}`, exp), two('client-a', `jti-${round}`, exp)]);
      expect(answers.filter(Boolean)).toHaveLength(1);
    }
    expect(await two('client-a', 'jti-0', exp)).toBe(false);
    // Another issuer's jti of the same value is another one.
    expect(await one('client-b', 'jti-0', exp)).toBe(true);
    const rows = await databases[0]!.db.selectFrom('oidc_payloads').select(['expires_at']).where('model', '=', 'ReplayDetection').execute();
    expect(rows).toHaveLength(6);
    expect(rows.every((row) => Number(row.expires_at) === T + 60_000)).toBe(true);
  });

  it('takes over a record once it has expired', async () => {
    const one = serverOn(databases[0]!);
    clock.now = T + 59_999;
    expect(await one('client-a', 'jti-1', T / 1000 + 60)).toBe(false);
    clock.now = T + 60_000;
    expect(await one('client-a', 'jti-1', T / 1000 + 120)).toBe(true);
    expect(await one('client-a', 'jti-1', T / 1000 + 120)).toBe(false);
  });
});
