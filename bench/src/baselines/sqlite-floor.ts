/**
 * The floor's statements on SQLite (floor-adapter.ts has the floor's rules), with the durability
 * Gatehouse's SQLite default gives a refresh-token rotation (packages/db, open-database.ts
 * `deferredSync` and sqlite-driver.ts). Rules here:
 * - one file per floor next to the run's databases, in WAL mode with a busy timeout, on one
 *   node:sqlite connection with prepared statements, holding only the table of the floor's kind;
 * - a rotation is one transaction (the consumed token updated, the new one inserted), committed
 *   with `synchronous = NORMAL`; the write resolves only once an fdatasync of the `-wal` file has
 *   run in libuv's pool, so what is answered is on disk, as after a FULL commit;
 * - one sync at a time: the commits that arrive while one runs share the next one.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import type { FloorEngine, FloorKind, TokenRow } from './floor-adapter.ts';

export function sqliteFloor(path: string, kind: FloorKind): FloorEngine {
  const { db, durably, close } = openDurably(path);

  if (kind === 'client') {
    db.exec('create table if not exists bench_floor_clients (id text primary key, metadata text not null)');
    const findClient = db.prepare('select metadata from bench_floor_clients where id = ?');
    const saveClient = db.prepare('insert into bench_floor_clients (id, metadata) values (?, ?) on conflict (id) do update set metadata = excluded.metadata');
    return {
      kind,
      readClient: async (id) => (findClient.get(id) as { metadata: string } | undefined)?.metadata,
      saveClient: (id, metadata) => durably(() => void saveClient.run(id, metadata)),
      close,
    };
  }

  db.exec('create table if not exists bench_floor_refresh_tokens (id text primary key, payload text not null, consumed_at integer, expires_at integer)');
  const find = db.prepare('select payload, consumed_at as consumedAt, expires_at as expiresAt from bench_floor_refresh_tokens where id = ?');
  const consume = db.prepare('update bench_floor_refresh_tokens set consumed_at = ? where id = ?');
  const insert = db.prepare('insert into bench_floor_refresh_tokens (id, payload, expires_at) values (?, ?, ?)');
  const remove = db.prepare('delete from bench_floor_refresh_tokens where id = ?');
  const removeOfGrant = db.prepare("delete from bench_floor_refresh_tokens where json_extract(payload, '$.grantId') = ?");
  return {
    kind,
    readToken: async (id) => find.get(id) as TokenRow | undefined,
    storeToken: (token, consumed) =>
      durably(() => {
        if (consumed) consume.run(consumed.at, consumed.id);
        insert.run(token.id, token.payload, token.expiresAt);
      }),
    deleteToken: (id) => durably(() => void remove.run(id)),
    deleteTokensOfGrant: (grantId) => durably(() => void removeOfGrant.run(grantId)),
    close,
  };
}

/** A floor's database file, as the rules above open it, with its durable transactions. */
export interface DurableDatabase {
  readonly db: DatabaseSync;
  /** Runs `work` in one transaction and resolves once its commit is on disk. */
  durably(work: () => void): Promise<void>;
  /** Waits for the sync that runs, then closes the file. */
  close(): Promise<void>;
}

export function openDurably(path: string): DurableDatabase {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');
  const sync = walSync(path);
  return {
    db,
    durably(work) {
      db.exec('begin');
      try {
        work();
        db.exec('commit');
      } catch (error) {
        db.exec('rollback');
        throw error;
      }
      return sync.afterCommit();
    },
    async close() {
      await sync.close();
      db.close();
    },
  };
}

/** fdatasync of `<path>-wal` in libuv's pool, one at a time, shared by the commits that arrive meanwhile. */
function walSync(path: string): { afterCommit: () => Promise<void>; close: () => Promise<void> } {
  let handle: FileHandle | undefined;
  let running: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const flush = async () => {
    handle ??= await open(`${path}-wal`, 'r');
    await handle.datasync();
  };
  const afterCommit = (): Promise<void> => {
    if (running === undefined) {
      running = flush().finally(() => {
        running = undefined;
      });
      return running;
    }
    // The sync running now may have started before this commit: wait for the one after it.
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return afterCommit();
      });
    return next;
  };
  return {
    afterCommit,
    close: async () => {
      await running?.catch(() => undefined);
      await handle?.close();
    },
  };
}
