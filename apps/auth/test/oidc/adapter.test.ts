import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { AdapterPayload } from 'oidc-provider';
import { recordStatements, TEST_ENGINES } from '@gatehouse/db/testing';
import { createClientRowReader, createClientStore } from '../../src/clients/client-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createOidcAdapter } from '../../src/oidc/adapter.ts';
import { createPayloadStore } from '../../src/oidc/payload-store.ts';
import { createTokenPathReads } from '../../src/oidc/token-path-reads.ts';
import { createAccountStore } from '../../src/accounts/account-store.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 9));
const T = 1_790_000_000_000;

describe.each(TEST_ENGINES)('oidc adapter on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const clock = { now: T };
  const setup = () => {
    const clients = createClientStore(database.db, box, () => T);
    const adapter = createOidcAdapter({ payloads: createPayloadStore(database.db), db: database.db, clients, clock: () => clock.now });
    return { clients, adapter };
  };

  it('does not store an empty SSO session, and stores one that carries anything', async () => {
    clock.now = T;
    const { adapter } = setup();
    const sessions = adapter.adapterFactory('Session');
    await sessions.upsert('s-empty', { jti: 's-empty', kind: 'Session', uid: 'u1', iat: T / 1000, exp: T / 1000 + 60 }, 60);
    expect(await sessions.find('s-empty')).toBeUndefined();
    const signedIn: AdapterPayload = { jti: 's-user', kind: 'Session', uid: 'u2', accountId: 'acc-1', loginTs: T / 1000, exp: T / 1000 + 60 };
    await sessions.upsert('s-user', signedIn, 60);
    expect(await sessions.find('s-user')).toEqual(signedIn);
    const loggingOut: AdapterPayload = { jti: 's-state', kind: 'Session', uid: 'u3', state: { secret: 'x' }, exp: T / 1000 + 60 };
    await sessions.upsert('s-state', loggingOut, 60);
    expect(await sessions.find('s-state')).toEqual(loggingOut);
    await sessions.destroy('s-user');
    await sessions.destroy('s-state');
  });

  it('upserts and finds a payload per model, replacing on re-upsert', async () => {
    clock.now = T;
    const { adapter } = setup();
    const codes = adapter.adapterFactory('AuthorizationCode');
    const tokens = adapter.adapterFactory('AccessToken');
    const payload: AdapterPayload = { jti: 'c1', kind: 'AuthorizationCode', accountId: 'acc-1', sessionUid: 'sess-1', grantId: 'g1', scope: 'openid', exp: T / 1000 + 60 };
    await codes.upsert('c1', payload, 60);
    expect(await codes.find('c1')).toEqual(payload);
    expect(await tokens.find('c1')).toBeUndefined();
    expect(await codes.find('missing')).toBeUndefined();

    await codes.upsert('c1', { ...payload, scope: 'openid email' }, 60);
    expect(await codes.find('c1')).toEqual({ ...payload, scope: 'openid email' });
    const rows = await database.db.selectFrom('oidc_payloads').selectAll().where('id', '=', 'c1').execute();
    expect(rows).toEqual([
      {
        model: 'AuthorizationCode',
        id: 'c1',
        payload: JSON.stringify({ ...payload, scope: 'openid email' }),
        grant_id: 'g1',
        user_code: null,
        uid: null,
        account_id: 'acc-1',
        session_uid: 'sess-1',
        expires_at: T + 60_000,
        consumed_at: null,
      },
    ]);
  });

  it('hides a payload once it has expired and purges expired rows', async () => {
    clock.now = T;
    const { adapter } = setup();
    const sessions = adapter.adapterFactory('Session');
    await sessions.upsert('s-short', { uid: 'u-short', accountId: 'a' }, 10);
    await sessions.upsert('s-forever', { uid: 'u-forever', accountId: 'a' });
    clock.now = T + 9_999;
    expect(await sessions.find('s-short')).toEqual({ uid: 'u-short', accountId: 'a' });
    expect(await sessions.findByUid('u-short')).toEqual({ uid: 'u-short', accountId: 'a' });
    clock.now = T + 10_000;
    expect(await sessions.find('s-short')).toBeUndefined();
    expect(await sessions.findByUid('u-short')).toBeUndefined();
    expect(await sessions.find('s-forever')).toEqual({ uid: 'u-forever', accountId: 'a' });

    clock.now = T + 60_000; // also past the 60 s authorization code above
    expect(await adapter.purgeExpired()).toBe(2);
    expect(await adapter.purgeExpired()).toBe(0);
    const left = await database.db.selectFrom('oidc_payloads').select(['model', 'id']).orderBy('id').execute();
    expect(left).toEqual([{ model: 'Session', id: 's-forever' }]);
  });

  it('consume marks the payload with epoch seconds and survives a re-save', async () => {
    clock.now = T + 1_500;
    const { adapter } = setup();
    const codes = adapter.adapterFactory('AuthorizationCode');
    await codes.upsert('c2', { jti: 'c2', grantId: 'g2' }, 60);
    expect((await codes.find('c2'))!.consumed).toBeUndefined();
    clock.now = T + 2_700;
    await codes.consume('c2');
    expect(await codes.find('c2')).toEqual({ jti: 'c2', grantId: 'g2', consumed: T / 1000 + 2 });
    await codes.upsert('c2', { jti: 'c2', grantId: 'g2', consumed: T / 1000 + 2 }, 60);
    expect((await codes.find('c2'))!.consumed).toBe(T / 1000 + 2);
    await codes.consume('missing');
    expect(await codes.find('missing')).toBeUndefined();
  });

  it('finds by user code and uid within the model only', async () => {
    clock.now = T;
    const { adapter } = setup();
    const device = adapter.adapterFactory('DeviceCode');
    await device.upsert('d1', { userCode: 'WDJB-MJHT', grantId: 'g3' }, 600);
    expect(await device.findByUserCode('WDJB-MJHT')).toEqual({ userCode: 'WDJB-MJHT', grantId: 'g3' });
    expect(await device.findByUserCode('XXXX-XXXX')).toBeUndefined();
    expect(await adapter.adapterFactory('Session').findByUserCode('WDJB-MJHT')).toBeUndefined();
    const interactions = adapter.adapterFactory('Interaction');
    await interactions.upsert('i1', { uid: 'shared-uid' }, 600);
    expect(await adapter.adapterFactory('Session').findByUid('shared-uid')).toBeUndefined();
    expect(await interactions.findByUid('shared-uid')).toEqual({ uid: 'shared-uid' });
  });

  it('destroy removes one row; revokeByGrantId removes every token model’s rows of that grant, not an interaction', async () => {
    clock.now = T;
    const { adapter } = setup();
    const access = adapter.adapterFactory('AccessToken');
    const refresh = adapter.adapterFactory('RefreshToken');
    const codes = adapter.adapterFactory('AuthorizationCode');
    await access.upsert('at1', { grantId: 'g9' }, 3600);
    await access.upsert('at2', { grantId: 'g10' }, 3600);
    await refresh.upsert('rt1', { grantId: 'g9' }, 3600);
    await codes.upsert('c9', { grantId: 'g9' }, 60);

    await codes.destroy('c9');
    expect(await codes.find('c9')).toBeUndefined();
    expect(await access.find('at1')).toEqual({ grantId: 'g9' });

    await codes.upsert('c9', { grantId: 'g9' }, 60);
    // An interaction started under the grant outlives its revocation (a logout while switching accounts).
    const interactions = adapter.adapterFactory('Interaction');
    await interactions.upsert('i9', { grantId: 'g9', uid: 'i9' }, 600);
    await access.revokeByGrantId('g9');
    expect(await access.find('at1')).toBeUndefined();
    expect(await refresh.find('rt1')).toBeUndefined();
    expect(await codes.find('c9')).toBeUndefined();
    expect(await access.find('at2')).toEqual({ grantId: 'g10' });
    expect(await interactions.find('i9')).toEqual({ grantId: 'g9', uid: 'i9' });
  });

  it('serves the Client model from the client store and ignores writes to it', async () => {
    clock.now = T;
    const { adapter, clients } = setup();
    const created = await clients.create({
      clientId: 'app-one',
      redirectUris: ['http://localhost:3001/callback'],
      postLogoutRedirectUris: ['http://localhost:3001/signed-out'],
      name: 'App One',
    });
    const client = adapter.adapterFactory('Client');
    expect(await client.find('app-one')).toEqual({
      client_id: 'app-one',
      client_secret: created.clientSecret,
      redirect_uris: ['http://localhost:3001/callback'],
      post_logout_redirect_uris: ['http://localhost:3001/signed-out'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      client_name: 'App One',
      api_scope_limit: 'null',
    });
    expect(await client.find('unknown')).toBeUndefined();
    await client.upsert('intruder', { client_id: 'intruder', redirect_uris: ['https://evil.example/cb'] }, 60);
    await client.destroy('app-one');
    expect(await client.find('intruder')).toBeUndefined();
    expect((await client.find('app-one'))!.client_id).toBe('app-one');
    expect(await database.db.selectFrom('oidc_payloads').select('id').where('model', '=', 'Client').execute()).toEqual([]);
  });

  describe('inside a request (read ahead, rotation in one commit)', () => {
    const seed = async () => {
      clock.now = T;
      const box2 = createSecretBox(Buffer.alloc(32, 9));
      const accounts = createAccountStore(database.db, box2, () => T);
      const account = await accounts.create({ username: `ra-${engine}-${Math.random().toString(36).slice(2)}`, email: 'ra@example.com', name: 'RA', groups: ['staff'], passwordHash: 'h' });
      const plain = createOidcAdapter({ payloads: createPayloadStore(database.db), db: database.db, clients: createClientStore(database.db, box, () => T), clock: () => clock.now });
      const id = Math.random().toString(36).slice(2);
      const grant = { jti: `g-${id}`, kind: 'Grant', accountId: account.id, clientId: 'app-ra', exp: T / 1000 + 600 };
      const session = { jti: `s-${id}`, kind: 'Session', uid: `u-${id}`, accountId: account.id, loginTs: T / 1000, exp: T / 1000 + 600 };
      const token = { jti: `r-${id}`, kind: 'RefreshToken', grantId: grant.jti, sessionUid: session.uid, accountId: account.id, clientId: 'app-ra', expiresWithSession: true, exp: T / 1000 + 600 };
      await plain.adapterFactory('Grant').upsert(grant.jti, grant, 600);
      await plain.adapterFactory('Session').upsert(session.jti, session, 600);
      await plain.adapterFactory('RefreshToken').upsert(token.jti, token, 600);
      return { plain, account, grant, session, token };
    };
    const inRequest = () => {
      let request: object | undefined;
      // As services.ts composes them: the stores wrapped by the token path's reads.
      const reads = createTokenPathReads({ db: database.db, engine, currentRequest: () => request, refreshTokenOfRequest: () => undefined, clientOfRow: createClientRowReader(box, () => T) });
      const clients = reads.clients(createClientStore(database.db, box, () => T));
      const accounts = reads.accounts(createAccountStore(database.db, createSecretBox(Buffer.alloc(32, 9)), () => T));
      const adapter = createOidcAdapter({ payloads: reads.payloads(createPayloadStore(database.db)), db: database.db, clients, clock: () => clock.now, currentRequest: () => request, engine });
      return { adapter, accounts, begin: () => (request = {}), end: () => (request = undefined), current: () => request };
    };
    const countStatements = () => {
      const recorder = recordStatements(database.db as never);
      return {
        get count() {
          return recorder.statements.length;
        },
        set count(value: number) {
          recorder.statements.length = value;
        },
        stop: recorder.stop,
      };
    };

    it('a refresh token read with its grant, session and account gives the same models as separate reads, in one statement', async () => {
      const { plain, account, grant, session, token } = await seed();
      const { adapter, accounts, begin, end } = inRequest();
      begin();
      const counter = countStatements();
      try {
        expect(await adapter.adapterFactory('RefreshToken').find(token.jti)).toEqual(await plain.adapterFactory('RefreshToken').find(token.jti));
        counter.count = 0;
        expect(await adapter.adapterFactory('Grant').find(grant.jti)).toEqual(grant);
        expect(await adapter.adapterFactory('Session').findByUid(session.uid)).toEqual(session);
        expect(await accounts.findById(account.id)).toEqual(account);
        expect(counter.count).toBe(0);
        // Each row answers once: a second lookup reads the database.
        expect(await adapter.adapterFactory('Grant').find(grant.jti)).toEqual(grant);
        expect(counter.count).toBe(1);
      } finally {
        counter.stop();
        end();
      }
    });

    it('rows read ahead never answer another request, and a write drops them', async () => {
      const { plain, grant, token } = await seed();
      const { adapter, begin, end } = inRequest();
      begin();
      await adapter.adapterFactory('RefreshToken').find(token.jti);
      // Meanwhile the grant is revoked; the next request must not see the row read before.
      await plain.adapterFactory('Grant').destroy(grant.jti);
      begin();
      expect(await adapter.adapterFactory('Grant').find(grant.jti)).toBeUndefined();
      end();
      expect(await adapter.adapterFactory('Grant').find(grant.jti)).toBeUndefined();

      const again = await seed();
      begin();
      await adapter.adapterFactory('RefreshToken').find(again.token.jti);
      await plain.adapterFactory('Grant').destroy(again.grant.jti);
      // A write through the adapter in the same request drops what was read ahead.
      await adapter.adapterFactory('AccessToken').destroy('unrelated');
      expect(await adapter.adapterFactory('Grant').find(again.grant.jti)).toBeUndefined();
      end();
    });

    it('an expired grant read ahead is expired when it is served, by the clock of that moment', async () => {
      const { grant, token } = await seed();
      const { adapter, begin, end } = inRequest();
      begin();
      await adapter.adapterFactory('RefreshToken').find(token.jti);
      clock.now = T + 600_000;
      expect(await adapter.adapterFactory('Grant').find(grant.jti)).toBeUndefined();
      end();
      clock.now = T;
    });

    it('a rotation commits the consumption with the new token; alone, it is committed by flushPendingWrites or the next call', async () => {
      const { token } = await seed();
      const { adapter, begin, end, current } = inRequest();
      const tokens = adapter.adapterFactory('RefreshToken');
      const consumedAt = async (id: string) => (await database.db.selectFrom('oidc_payloads').select('consumed_at').where('model', '=', 'RefreshToken').where('id', '=', id).executeTakeFirst())?.consumed_at;
      begin();
      clock.now = T + 1_000;
      await tokens.consume(token.jti);
      expect(await consumedAt(token.jti)).toBeNull();
      const next = { ...token, jti: `${token.jti}-next`, rotations: 1 };
      await tokens.upsert(next.jti, next, 600);
      expect(await consumedAt(token.jti)).toBe(T + 1_000);
      expect(await tokens.find(next.jti)).toEqual(next);
      end();

      const second = await seed();
      clock.now = T + 1_000;
      begin();
      await tokens.consume(second.token.jti);
      const request = current()!;
      end();
      expect(await consumedAt(second.token.jti)).toBeNull();
      await adapter.flushPendingWrites(request);
      expect(await consumedAt(second.token.jti)).toBe(T + 1_000);
      await adapter.flushPendingWrites(request);

      const third = await seed();
      clock.now = T + 1_000;
      begin();
      await tokens.consume(third.token.jti);
      expect((await tokens.find(third.token.jti))!.consumed).toBe(T / 1000 + 1);
      end();

      // Two requests rotating in the same turn (one shared transaction on SQLite): both committed.
      const [a, b] = [await seed(), await seed()];
      clock.now = T + 1_000;
      const als = new AsyncLocalStorage<object>();
      const concurrent = createOidcAdapter({ payloads: createPayloadStore(database.db), db: database.db, clients: createClientStore(database.db, box, () => T), clock: () => clock.now, currentRequest: () => als.getStore(), engine });
      const rotate = (t: typeof a.token) =>
        als.run({}, async () => {
          const own = concurrent.adapterFactory('RefreshToken');
          await own.consume(t.jti);
          await own.upsert(`${t.jti}-next`, { ...t, jti: `${t.jti}-next` }, 600);
        });
      await Promise.all([rotate(a.token), rotate(b.token)]);
      expect([await consumedAt(a.token.jti), await consumedAt(b.token.jti)]).toEqual([T + 1_000, T + 1_000]);
      expect([(await tokens.find(`${a.token.jti}-next`))?.jti, (await tokens.find(`${b.token.jti}-next`))?.jti]).toEqual([`${a.token.jti}-next`, `${b.token.jti}-next`]);

      // Outside a request a consumption is committed at once, as before.
      const fourth = await seed();
      clock.now = T + 1_000;
      await tokens.consume(fourth.token.jti);
      expect(await consumedAt(fourth.token.jti)).toBe(T + 1_000);
      clock.now = T;
    });

    it('on a SQLite file, a rotation commits without waiting for the disk, and the request is answered only once the log is synced (PostgreSQL: no such mode)', async () => {
      if (engine === 'postgres') {
        expect(database.deferredSync).toBeUndefined();
        return;
      }
      const { token } = await seed();
      const deferred = database.deferredSync!;
      expect(deferred).toBeDefined();
      let openSync: () => void = () => {};
      let syncs = 0;
      const gated = {
        transaction: deferred.transaction,
        sync: async () => {
          syncs += 1;
          await new Promise<void>((resolve) => (openSync = resolve));
          await deferred.sync();
        },
      };
      let request: object | undefined;
      const adapter = createOidcAdapter({ payloads: createPayloadStore(database.db), db: database.db, clients: createClientStore(database.db, box, () => T), clock: () => clock.now, currentRequest: () => request, engine, deferredSync: gated });
      const tokens = adapter.adapterFactory('RefreshToken');
      clock.now = T + 1_000;
      const served = {};
      request = served;
      await tokens.consume(token.jti);
      // The upsert returns once committed: the request goes on (it signs its tokens) during the sync.
      await tokens.upsert(`${token.jti}-next`, { ...token, jti: `${token.jti}-next` }, 600);
      request = undefined;
      expect(syncs).toBe(1);
      const stored = await database.db.selectFrom('oidc_payloads').select(['id', 'consumed_at']).where('model', '=', 'RefreshToken').where('id', 'in', [token.jti, `${token.jti}-next`]).orderBy('id').execute();
      expect(stored).toEqual([{ id: token.jti, consumed_at: T + 1_000 }, { id: `${token.jti}-next`, consumed_at: null }]);
      // Before the response (pending-writes.ts): waits until the disk has confirmed it.
      let answered = false;
      const flushed = adapter.flushPendingWrites(served).then(() => (answered = true));
      for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);
      openSync();
      await flushed;
      expect(answered).toBe(true);
      // Waited for once: a second flush of the same request has nothing left.
      await adapter.flushPendingWrites(served);
      expect((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(database.db)).rows[0]!.synchronous).toBe(2);
      clock.now = T;
    });

    it('on a SQLite file, a failed sync fails the request at its end, though the rotation was committed', async () => {
      if (engine === 'postgres') return;
      const { token } = await seed();
      const deferred = database.deferredSync!;
      const failing = { transaction: deferred.transaction, sync: () => Promise.reject(new Error('EIO: i/o error, fdatasync')) };
      let request: object | undefined;
      const adapter = createOidcAdapter({ payloads: createPayloadStore(database.db), db: database.db, clients: createClientStore(database.db, box, () => T), clock: () => clock.now, currentRequest: () => request, engine, deferredSync: failing });
      const tokens = adapter.adapterFactory('RefreshToken');
      const served = {};
      request = served;
      await tokens.consume(token.jti);
      await tokens.upsert(`${token.jti}-next`, { ...token, jti: `${token.jti}-next` }, 600);
      request = undefined;
      await expect(adapter.flushPendingWrites(served)).rejects.toThrow('EIO: i/o error, fdatasync');
    });
  });
});
