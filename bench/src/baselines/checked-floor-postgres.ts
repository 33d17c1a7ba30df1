/**
 * The checked floor's statements on PostgreSQL (checked-floor.ts has its rules). As apps/auth:
 * named prepared statements on a pool of 10, the payload table filled to half by inserts
 * (migration 025), a rotation in one statement, an audit batch in one statement (a JSON array).
 */
import pg from 'pg';
import type { CheckedFloorEngine } from './checked-floor.ts';
import { ACCOUNTS, AUDIT, AUDIT_COLUMNS, auditValues, INSERT_COLUMNS, insertValues, PAYLOADS, schema, tokenWithRelated, tokenWithRelatedSql } from './checked-floor-sql.ts';

const params = (from: number, count: number) => Array.from({ length: count }, (_, i) => `$${from + i}`).join(', ');
const INSERT = `insert into ${PAYLOADS} (${INSERT_COLUMNS.join(', ')}) values (${params(1, INSERT_COLUMNS.length)})`;
const ROTATE = `with consumed as (update ${PAYLOADS} set consumed_at = $${INSERT_COLUMNS.length + 1} where model = 'RefreshToken' and id = $${INSERT_COLUMNS.length + 2}) ${INSERT}`;
const APPEND = `insert into ${AUDIT} (${AUDIT_COLUMNS.join(', ')}) select ${AUDIT_COLUMNS.map((column, i) => (column === 'occurred_at' ? `(r.v ->> ${i})::bigint` : `r.v ->> ${i}`)).join(', ')} from json_array_elements($1::json) with ordinality as r(v, n) order by r.n`;

export async function postgresCheckedFloor(connectionString: string): Promise<CheckedFloorEngine> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  for (const statement of schema('id bigserial primary key')) await pool.query(statement);
  await pool.query(`alter table ${PAYLOADS} set (fillfactor = 50)`);
  const run = (name: string, text: string, values: unknown[]) => pool.query({ name, text, values });
  const time = (value: string | null) => (value === null ? null : Number(value));
  return {
    async readTokenWithRelated(id) {
      return tokenWithRelated((await run('checked_read', tokenWithRelatedSql('$1'), [id])).rows[0]);
    },
    async readModel(model, key) {
      const text = `select payload, consumed_at, expires_at from ${PAYLOADS} where model = $1 and ${model === 'Session' ? 'uid' : 'id'} = $2`;
      const row = (await run(`checked_find_${model}`, text, [model, key])).rows[0] as { payload: string; consumed_at: string | null; expires_at: string | null } | undefined;
      return row && { payload: row.payload, consumedAt: time(row.consumed_at), expiresAt: time(row.expires_at) };
    },
    async storeToken(token, consumed) {
      const values = insertValues('RefreshToken', token);
      await (consumed ? run('checked_rotate', ROTATE, [...values, consumed.at, consumed.id]) : run('checked_insert', INSERT, values));
    },
    async saveModel(model, row) {
      await run('checked_insert', INSERT, insertValues(model, row));
    },
    async saveAccount(id) {
      await pool.query(`insert into ${ACCOUNTS} (id) values ($1)`, [id]);
    },
    async appendAudit(rows) {
      await run('checked_audit', APPEND, [JSON.stringify(rows.map(auditValues))]);
    },
    async deleteToken(id) {
      await run('checked_destroy', `delete from ${PAYLOADS} where model = 'RefreshToken' and id = $1`, [id]);
    },
    async deleteTokensOfGrant(grantId) {
      await run('checked_revoke', `delete from ${PAYLOADS} where grant_id = $1`, [grantId]);
    },
    close: () => pool.end(),
  };
}
