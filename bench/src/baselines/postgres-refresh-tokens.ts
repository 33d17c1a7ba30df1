/**
 * The floor of a token endpoint that stores its refresh tokens in PostgreSQL: an
 * oidc-provider adapter that keeps every model in oidc-provider's own memory adapter, as the
 * memory baseline does, except RefreshToken, which it keeps in one PostgreSQL table with the
 * least work a durable rotation can do:
 * - a refresh's lookup of the presented token is one statement (by primary key);
 * - its rotation (the presented token consumed, the new one stored) is one statement, one commit;
 * - named prepared statements on a pool of 10 connections, like apps/auth;
 * - no grant, session or account row, no index but the primary key, no audit, no log line.
 * Everything else a real server stores (grants, sessions, accounts) it keeps in memory, so a
 * Gatehouse on PostgreSQL can at best reach what this reaches against the memory baseline: the
 * suite prints it next to the refresh grant's own ratio. Not a server to run: a consumption is
 * only stored with the rotation that follows it (oidc-provider's refresh grant always makes one).
 */
import pg from 'pg';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';

const TABLE = 'bench_floor_refresh_tokens';

export async function postgresRefreshTokens(connectionString: string): Promise<{ adapter: (model: string) => Adapter; close: () => Promise<void> }> {
  const pool = new pg.Pool({ connectionString, max: 10 });
  await pool.query(`create table if not exists ${TABLE} (id text primary key, payload text not null, consumed_at bigint, expires_at bigint)`);
  const memory = createMemoryAdapter();
  const grantOf = new Map<string, string>();
  /** A refresh token consumed, by its grant: stored with the grant's next refresh token. */
  const consumedByGrant = new Map<string, { id: string; at: number }>();

  const refreshTokens: Adapter = {
    async find(id) {
      const { rows } = await pool.query<{ payload: string; consumed_at: string | null; expires_at: string | null }>({ name: 'floor_find', text: `select payload, consumed_at, expires_at from ${TABLE} where id = $1`, values: [id] });
      const row = rows[0];
      if (!row || (row.expires_at !== null && Number(row.expires_at) <= Date.now())) return undefined;
      const payload = JSON.parse(row.payload) as AdapterPayload;
      if (row.consumed_at !== null) payload.consumed = Math.floor(Number(row.consumed_at) / 1000);
      if (typeof payload.grantId === 'string') grantOf.set(id, payload.grantId);
      return payload;
    },
    async consume(id) {
      const grantId = grantOf.get(id);
      grantOf.delete(id);
      if (grantId === undefined) throw new Error(`floor: consume of a refresh token not found first (${id})`);
      consumedByGrant.set(grantId, { id, at: Date.now() });
    },
    async upsert(id, payload, expiresIn) {
      const { consumed: _consumed, ...rest } = payload;
      const expiresAt = typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : null;
      const consumed = typeof payload.grantId === 'string' ? consumedByGrant.get(payload.grantId) : undefined;
      if (consumed) consumedByGrant.delete(payload.grantId!);
      await pool.query(
        consumed
          ? {
              name: 'floor_rotate',
              text: `with consumed as (update ${TABLE} set consumed_at = $4 where id = $5) insert into ${TABLE} (id, payload, expires_at) values ($1, $2, $3)`,
              values: [id, JSON.stringify(rest), expiresAt, consumed.at, consumed.id],
            }
          : { name: 'floor_insert', text: `insert into ${TABLE} (id, payload, expires_at) values ($1, $2, $3)`, values: [id, JSON.stringify(rest), expiresAt] },
      );
    },
    async destroy(id) {
      await pool.query({ name: 'floor_destroy', text: `delete from ${TABLE} where id = $1`, values: [id] });
    },
    async revokeByGrantId(grantId) {
      await pool.query({ name: 'floor_revoke', text: `delete from ${TABLE} where payload::json ->> 'grantId' = $1`, values: [grantId] });
    },
    async findByUid() {
      return undefined;
    },
    async findByUserCode() {
      return undefined;
    },
  };
  return { adapter: (model) => (model === 'RefreshToken' ? refreshTokens : memory(model)), close: () => pool.end() };
}
