/**
 * The token path's reads (src/oidc/token-path-reads.ts) keep a client row with the policy rows
 * across requests only while the clients and policies are unchanged, by any process.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChangeListener, Database } from '@gatehouse/db';
import { createTestDatabase, recordStatements, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { createClientRowReader, createClientStore } from '../../src/clients/client-store.ts';
import { CLIENT_CHANGES_CHANNEL, clientChangeSource, createClientChangeTracker } from '../../src/clients/client-change-tracker.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createScopePolicyStore } from '../../src/policy/scope-policy-store.ts';
import { createTokenPathReads, POLICY_ROWS_COLUMN } from '../../src/oidc/token-path-reads.ts';
import { openAuthDatabase } from '../../src/storage/open-auth-database.ts';
import type { AuthSchema } from '../../src/storage/schema.ts';

const box = createSecretBox(Buffer.alloc(32, 5));
const NOW = 1_790_000_000_000;

describe.each(TEST_ENGINES)('token path reads: client rows reused while the data is unchanged, on %s', (engine) => {
  let target: TestDatabase;
  let database: Database<AuthSchema>;
  let other: Database<AuthSchema>;
  /** PostgreSQL: the server's listener of client changes (main.ts); SQLite needs none. */
  let listener: ChangeListener | undefined;
  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = await openAuthDatabase(target.url);
    // A second connection to the same database: another process, as authctl is.
    other = await openAuthDatabase(target.url);
    listener = database.engine === 'postgres' ? database.listen(CLIENT_CHANGES_CHANNEL) : undefined;
    await listener?.listening();
  });
  afterAll(async () => {
    await other.close();
    await database.close();
    await target.drop();
  });

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  /**
   * Until this process has heard of another process's commit: on SQLite at once (the next
   * lookup sees the file's new version), on PostgreSQL once its notification has arrived.
   */
  async function heard(before: number | undefined): Promise<void> {
    await nextTurn();
    if (listener) await vi.waitFor(() => expect(listener!.version()).not.toBe(before));
  }
  /** The stores as the server composes them (services.ts), inside one request, and its statement count. */
  function tokenEndpointStore(tracker = createClientChangeTracker(clientChangeSource(database, listener))) {
    const reads = createTokenPathReads({ db: database.db, engine, currentRequest: () => ({}), refreshTokenOfRequest: () => undefined, clientOfRow: createClientRowReader(box, () => NOW), changes: tracker });
    const clients = reads.clients(createClientStore(database.db, box, () => NOW, tracker));
    const policies = reads.scopePolicies(createScopePolicyStore(database.db, () => NOW, tracker));
    const recorder = recordStatements(database.db as never);
    // The token endpoint's reads of a client with the policy rows (other connections' statements count too).
    const statements = {
      get count() {
        return recorder.statements.filter((text) => text.includes(POLICY_ROWS_COLUMN)).length;
      },
      stop: recorder.stop,
    };
    return { clients, policies, statements };
  }

  it('reads a client once while nothing changes, and again after a change by another process', async () => {
    const otherStore = createClientStore(other.db, box, () => NOW);
    const otherPolicies = createScopePolicyStore(other.db, () => NOW);
    let before = listener?.version();
    const { clientSecret } = await otherStore.create({ clientId: 'kept-client', redirectUris: [], grantTypes: ['client_credentials'] });
    await heard(before);
    const { clients, statements } = tokenEndpointStore();
    try {
      expect((await clients.find('kept-client'))?.clientSecret).toBe(clientSecret);
      await nextTurn();
      expect((await clients.find('kept-client'))?.clientSecret).toBe(clientSecret);
      expect(statements.count).toBe(1);

      // A rotation by another connection is seen once heard of.
      before = listener?.version();
      const rotated = await otherStore.rotateSecret('kept-client', 0);
      await heard(before);
      expect((await clients.find('kept-client'))?.clientSecret).toBe(rotated.clientSecret);
      expect(statements.count).toBe(2);

      // So is a new scope policy: the policy rows are kept with the client's.
      before = listener?.version();
      await otherPolicies.set('movies:write', ['editors']);
      await heard(before);
      await clients.find('kept-client');
      expect(statements.count).toBe(3);

      // And a removal.
      before = listener?.version();
      expect(await otherStore.remove('kept-client')).toBe(true);
      await heard(before);
      expect(await clients.find('kept-client')).toBeUndefined();
    } finally {
      statements.stop();
    }
  });

  it("keeps using a client row through this process's own commits to other tables", async () => {
    const before = listener?.version();
    await createClientStore(other.db, box, () => NOW).create({ clientId: 'busy-client', redirectUris: [], grantTypes: ['client_credentials'] });
    await heard(before);
    const { clients, statements } = tokenEndpointStore();
    try {
      await clients.find('busy-client');
      // What a token request commits: a token row, an audit row.
      await database.db.insertInto('oidc_payloads').values({ model: 'RefreshToken', id: 'busy-token', payload: '{}', grant_id: null, user_code: null, uid: null, expires_at: null, consumed_at: null }).execute();
      await database.db.insertInto('audit_events').values({ occurred_at: NOW, event: 'token.issued', account_id: null, username: null, client_id: 'busy-client', actor_kind: null, actor: null, ip: null, fields: '{}', request_id: null }).execute();
      await nextTurn();
      await clients.find('busy-client');
      await nextTurn();
      await clients.find('busy-client');
      expect(statements.count).toBe(1);
    } finally {
      statements.stop();
    }
  });

  it("sees this process's own changes at once, without waiting to hear of them", async () => {
    await createClientStore(other.db, box, () => NOW).create({ clientId: 'own-client', redirectUris: [], grantTypes: ['client_credentials'] });
    // A source that never moves: only the store's own writes can make it read again.
    const { clients, policies, statements } = tokenEndpointStore(createClientChangeTracker(() => 0));
    try {
      await clients.find('own-client');
      await clients.find('own-client');
      expect(statements.count).toBe(1);
      const own = await clients.rotateSecret('own-client', 0);
      const counted = statements.count;
      expect((await clients.find('own-client'))?.clientSecret).toBe(own.clientSecret);
      expect(statements.count).toBe(counted + 1);
      await policies.setClientScopes('own-client', ['movies:read']);
      expect((await clients.find('own-client'))?.allowedScopes).toEqual(['movies:read']);
      await policies.set('movies:read', ['readers']);
      const afterPolicy = statements.count;
      await clients.find('own-client');
      expect(statements.count).toBe(afterPolicy + 1);
      expect(await clients.remove('own-client')).toBe(true);
      expect(await clients.find('own-client')).toBeUndefined();
    } finally {
      statements.stop();
    }
  });

  it('reads every time while there is no version (PostgreSQL with nobody listening)', async () => {
    await createClientStore(other.db, box, () => NOW).create({ clientId: 'unheard-client', redirectUris: [], grantTypes: ['client_credentials'] });
    const { clients, statements } = tokenEndpointStore(createClientChangeTracker(() => undefined));
    try {
      await clients.find('unheard-client');
      await clients.find('unheard-client');
      await clients.find('unheard-client');
      expect(statements.count).toBe(3);
    } finally {
      statements.stop();
    }
  });

  it('does not keep a client that is not there', async () => {
    const { clients, statements } = tokenEndpointStore();
    try {
      expect(await clients.find('late-client')).toBeUndefined();
      const before = listener?.version();
      await createClientStore(other.db, box, () => NOW).create({ clientId: 'late-client', redirectUris: [], grantTypes: ['client_credentials'] });
      await heard(before);
      expect((await clients.find('late-client'))?.clientId).toBe('late-client');
      expect(statements.count).toBe(2);
    } finally {
      statements.stop();
    }
  });
});
