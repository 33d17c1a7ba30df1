/**
 * When the client rows the token endpoint keeps (clients/client-store.ts) may be reused. Rules:
 * - `version()` names the state of the clients and scope policies as this process knows it; a row
 *   kept at one version is reused only while `version()` returns that same version;
 * - `version()` is undefined when nothing may be reused (PostgreSQL with nobody listening);
 * - the source is the database's own (clientChangeSource): on SQLite the version that moves
 *   when another process commits to the file (Database.othersVersion, read once per event-loop
 *   turn), so this process's own commits to other tables (tokens, sessions, the audit trail) leave
 *   the kept rows in use while authctl or another server changing anything is seen by the requests
 *   of the next turn; on
 *   PostgreSQL the change listener of the channel the triggers of migration 016 notify
 *   (pg-change-listener.ts in @gatehouse/db);
 * - this process's own writes to clients or policies move it at once (`changed()`), without
 *   waiting for their notification to come back: a request that follows an admin change on the
 *   same server always sees it.
 */

import type { ChangeListener, Database } from '@gatehouse/db';
import type { AuthSchema } from '../storage/schema.ts';

/** The channel the triggers of migration 016_client_change_notifications notify. */
export const CLIENT_CHANGES_CHANNEL = 'gatehouse_clients';

export interface ClientChangeTracker {
  version(): number | undefined;
  /** Called after this process wrote to the clients or the scope policies. */
  changed(): void;
}

/**
 * The database's version of the clients and policies as far as other processes are concerned
 * (this process reports its own changes): on SQLite the version other connections' commits move,
 * on PostgreSQL the listener's version (none without a listener: nothing is reused).
 */
export function clientChangeSource(database: Database<AuthSchema>, listener?: Pick<ChangeListener, 'version'>): (() => number | undefined) | undefined {
  if (database.engine === 'sqlite') return database.othersVersion;
  return listener && (() => listener.version());
}

/** `source`: the database's version of the data (undefined when it has none now, or at all). */
export function createClientChangeTracker(source: (() => number | undefined) | undefined): ClientChangeTracker {
  let generation = 0;
  let seen: number | undefined;
  return {
    version() {
      const current = source?.();
      if (current === undefined) return undefined;
      if (current !== seen) {
        seen = current;
        generation += 1;
      }
      return generation;
    },
    changed() {
      generation += 1;
    },
  };
}

/**
 * Runs a write to the clients or the scope policies and reports it to `changes` afterwards,
 * whether it succeeded or not (reporting one too many costs one read).
 */
export async function reportingChange<T>(changes: Pick<ClientChangeTracker, 'changed'> | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    changes?.changed();
  }
}
