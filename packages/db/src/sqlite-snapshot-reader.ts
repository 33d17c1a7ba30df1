/**
 * The synchronous reads of `Database.readNow` on SQLite: a second connection to the same file,
 * used only for SELECTs (`query_only`), whose read transaction is shared by the reads of one turn
 * of the event loop. Rules:
 * - the first read of a turn opens a read transaction (its snapshot); it is released at
 *   `setImmediate`, so no snapshot outlives the turn it was taken in;
 * - a snapshot is dropped at once, before the read, when the app's own connection has written
 *   anything since it was taken (its write counter moved): a read never misses a write this
 *   process committed before the read began;
 * - the connection opens on the first read, so a process that never reads this way has one
 *   connection, as before.
 * Why: a read in its own transaction takes and releases the WAL read lock and checks the file's
 * size, three system calls per read, which on this kind of machine cost more than the read
 * itself (bench/README.md, API read). A turn's reads share them.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { bindParameters } from './sqlite-driver.ts';

export interface SnapshotReader {
  read(sql: string, parameters: readonly unknown[]): unknown[];
  close(): void;
}

export function sqliteSnapshotReader(path: string, ownWrites: () => number): SnapshotReader {
  let connection: { db: DatabaseSync; begin: StatementSync; commit: StatementSync } | undefined;
  const statements = new Map<string, StatementSync>();
  let open = false;
  let takenAtWrites = 0;

  function release(): void {
    if (!open) return;
    open = false;
    connection?.commit.run();
  }

  function connect(): NonNullable<typeof connection> {
    const db = new DatabaseSync(path);
    db.exec('PRAGMA busy_timeout = 5000; PRAGMA query_only = ON;');
    // Prepared once: compiling BEGIN and COMMIT on every turn cost as much as the read.
    return { db, begin: db.prepare('BEGIN'), commit: db.prepare('COMMIT') };
  }

  return {
    read(sql, parameters) {
      connection ??= connect();
      const writes = ownWrites();
      if (open && takenAtWrites !== writes) release();
      if (!open) {
        connection.begin.run();
        open = true;
        takenAtWrites = writes;
        setImmediate(release);
      }
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = connection.db.prepare(sql)));
      return statement.all(...bindParameters(parameters)) as unknown[];
    },
    close() {
      release();
      statements.clear();
      connection?.db.close();
      connection = undefined;
    },
  };
}
