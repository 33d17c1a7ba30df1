/**
 * The floor's statements on PostgreSQL (floor-adapter.ts has the floor's rules). Rules here:
 * - named prepared statements on a pool of 10 connections, like apps/auth;
 * - a rotation is one statement (the consumed token updated, the new one inserted), one commit;
 * - the table of the floor's kind (refresh tokens or clients), with its primary key only, in the
 *   database of the run.
 */
import pg from 'pg';
import type { FloorEngine, FloorKind } from './floor-adapter.ts';

const TOKENS = 'bench_floor_refresh_tokens';
const CLIENTS = 'bench_floor_clients';

export async function postgresFloor(connectionString: string, kind: FloorKind): Promise<FloorEngine> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  const close = () => pool.end();
  if (kind === 'client') {
    await pool.query(`create table if not exists ${CLIENTS} (id text primary key, metadata text not null)`);
    return {
      kind,
      async readClient(id) {
        const { rows } = await pool.query<{ metadata: string }>({ name: 'floor_client', text: `select metadata from ${CLIENTS} where id = $1`, values: [id] });
        return rows[0]?.metadata;
      },
      async saveClient(id, metadata) {
        await pool.query(`insert into ${CLIENTS} (id, metadata) values ($1, $2) on conflict (id) do update set metadata = excluded.metadata`, [id, metadata]);
      },
      close,
    };
  }
  await pool.query(`create table if not exists ${TOKENS} (id text primary key, payload text not null, consumed_at bigint, expires_at bigint)`);
  const time = (value: string | null) => (value === null ? null : Number(value));
  return {
    kind,
    async readToken(id) {
      const { rows } = await pool.query<{ payload: string; consumed_at: string | null; expires_at: string | null }>({ name: 'floor_find', text: `select payload, consumed_at, expires_at from ${TOKENS} where id = $1`, values: [id] });
      const row = rows[0];
      return row && { payload: row.payload, consumedAt: time(row.consumed_at), expiresAt: time(row.expires_at) };
    },
    async storeToken(token, consumed) {
      await pool.query(
        consumed
          ? {
              name: 'floor_rotate',
              text: `with consumed as (update ${TOKENS} set consumed_at = $4 where id = $5) insert into ${TOKENS} (id, payload, expires_at) values ($1, $2, $3)`,
              values: [token.id, token.payload, token.expiresAt, consumed.at, consumed.id],
            }
          : { name: 'floor_insert', text: `insert into ${TOKENS} (id, payload, expires_at) values ($1, $2, $3)`, values: [token.id, token.payload, token.expiresAt] },
      );
    },
    async deleteToken(id) {
      await pool.query({ name: 'floor_destroy', text: `delete from ${TOKENS} where id = $1`, values: [id] });
    },
    async deleteTokensOfGrant(grantId) {
      await pool.query({ name: 'floor_revoke', text: `delete from ${TOKENS} where payload::json ->> 'grantId' = $1`, values: [grantId] });
    },
    close,
  };
}
