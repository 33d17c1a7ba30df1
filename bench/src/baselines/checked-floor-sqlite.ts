/**
 * The checked floor's statements on SQLite (checked-floor.ts has its rules), with the durability of
 * the refresh floor there (sqlite-floor.ts): a file of its own in WAL mode, one node:sqlite
 * connection with prepared statements, each write a transaction answered once an fdatasync of the
 * `-wal` file has run in libuv's pool; an audit batch is one transaction of one insert per row
 * (as apps/auth's audit/audit-event-store.ts on SQLite).
 */
import type { CheckedFloorEngine } from './checked-floor.ts';
import { ACCOUNTS, AUDIT, AUDIT_COLUMNS, auditValues, INSERT_COLUMNS, insertValues, PAYLOADS, schema, tokenWithRelated, tokenWithRelatedSql } from './checked-floor-sql.ts';
import type { TokenRow } from './floor-adapter.ts';
import { openDurably } from './sqlite-floor.ts';

export function sqliteCheckedFloor(path: string): CheckedFloorEngine {
  const { db, durably, close } = openDurably(path);
  for (const statement of schema('id integer primary key autoincrement')) db.exec(statement);
  const read = db.prepare(tokenWithRelatedSql('?'));
  const findGrant = db.prepare(`select payload, consumed_at as consumedAt, expires_at as expiresAt from ${PAYLOADS} where model = 'Grant' and id = ?`);
  const findSession = db.prepare(`select payload, consumed_at as consumedAt, expires_at as expiresAt from ${PAYLOADS} where model = 'Session' and uid = ?`);
  const insert = db.prepare(`insert into ${PAYLOADS} (${INSERT_COLUMNS.join(', ')}) values (${INSERT_COLUMNS.map(() => '?').join(', ')})`);
  const consume = db.prepare(`update ${PAYLOADS} set consumed_at = ? where model = 'RefreshToken' and id = ?`);
  const append = db.prepare(`insert into ${AUDIT} (${AUDIT_COLUMNS.join(', ')}) values (${AUDIT_COLUMNS.map(() => '?').join(', ')})`);
  const remove = db.prepare(`delete from ${PAYLOADS} where model = 'RefreshToken' and id = ?`);
  const removeOfGrant = db.prepare(`delete from ${PAYLOADS} where grant_id = ?`);
  const saveAccount = db.prepare(`insert into ${ACCOUNTS} (id) values (?)`);
  return {
    readTokenWithRelated: async (id) => tokenWithRelated(read.get(id) as Record<string, string | number | null> | undefined),
    readModel: async (model, key) => (model === 'Session' ? findSession : findGrant).get(key) as TokenRow | undefined,
    storeToken: (token, consumed) =>
      durably(() => {
        if (consumed) consume.run(consumed.at, consumed.id);
        insert.run(...insertValues('RefreshToken', token));
      }),
    saveModel: (model, row) => durably(() => void insert.run(...insertValues(model, row))),
    saveAccount: (id) => durably(() => void saveAccount.run(id)),
    appendAudit: (rows) =>
      durably(() => {
        for (const row of rows) append.run(...auditValues(row));
      }),
    deleteToken: (id) => durably(() => void remove.run(id)),
    deleteTokensOfGrant: (grantId) => durably(() => void removeOfGrant.run(grantId)),
    close,
  };
}
