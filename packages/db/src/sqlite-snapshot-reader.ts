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
 *   connection;
 * - `version()` is the snapshot's `PRAGMA data_version`, read when the snapshot opens: SQLite changes
 *   it whenever another connection (this process's own writing one included) has committed since
 *   this connection last looked, so two equal versions mean the same committed data, and a result
 *   read at one version may be reused while the version stays (the API's item reads).
 * Why: a read in its own transaction takes and releases the WAL read lock and checks the file's
 * size, three system calls per read, which on this kind of machine cost more than the read
 * itself (bench/README.md, "API read"). A turn's reads share them.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { bindParameters } from './sqlite-driver.ts';

export interface SnapshotReader {
  read(sql: string, parameters: readonly unknown[]): unknown[];
  /** The committed state the reads of this turn see (opens the turn's snapshot if needed). */
  version(): number;
  close(): void;
}

export function sqliteSnapshotReader(path: string, ownWrites: () => number): SnapshotReader {
  let connection: { db: DatabaseSync; begin: StatementSync; dataVersion: StatementSync; commit: StatementSync } | undefined;
  const statements = new Map<string, StatementSync>();
  let open = false;
  let takenAtWrites = 0;
  // version(): a counter moved whenever a snapshot's data_version differs from the last one seen on
  // this connection (a new connection's first snapshot moves it too, as its data_version starts afresh).
  let version = 0;
  let seenDataVersion: number | undefined;

  function release(): void {
    if (!open) return;
    open = false;
    connection?.commit.run();
  }

  function connect(): NonNullable<typeof connection> {
    const db = new DatabaseSync(path);
    db.exec('PRAGMA busy_timeout = 5000; PRAGMA query_only = ON;');
    // Prepared once: compiling BEGIN and COMMIT on every turn cost as much as the read.
    const dataVersion = db.prepare('PRAGMA data_version');
    dataVersion.setReturnArrays(true);
    return { db, begin: db.prepare('BEGIN'), dataVersion, commit: db.prepare('COMMIT') };
  }

  /** The connection with this turn's snapshot open, renewed if this process wrote since it was taken. */
  function snapshot(): NonNullable<typeof connection> {
    if (!connection) {
      connection = connect();
      seenDataVersion = undefined;
    }
    const writes = ownWrites();
    if (open && takenAtWrites !== writes) release();
    if (!open) {
      connection.begin.run();
      open = true;
      takenAtWrites = writes;
      // BEGIN is deferred: this first statement starts the read transaction, so its value is the snapshot's.
      const dataVersion = (connection.dataVersion.get() as unknown as [number])[0];
      if (dataVersion !== seenDataVersion) {
        seenDataVersion = dataVersion;
        version++;
      }
      setImmediate(release);
    }
    return connection;
  }

  return {
    version() {
      snapshot();
      return version;
    },
    read(sql, parameters) {
      const { db } = snapshot();
      let statement = statements.get(sql);
      if (!statement) statements.set(sql, (statement = db.prepare(sql)));
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
