/**
 * Revocations of tokens that cannot be deleted because they are self-contained (JWT access
 * tokens), kept in the database so every instance agrees. Rules:
 * - a JWT is revoked by its `jti`, by its grant (`grant_id` claim: code reuse, refresh-token
 *   replay, logout, explicit grant revocation) or by its subject (tokens issued before a time);
 * - each entry expires when every token it can concern has expired, and is purged after that;
 * - entries are the revocation feed: `since(cursor)` returns them in id order. An id is read only
 *   once its row is older than `settleMs`, so a slower concurrent insert with a smaller id
 *   (PostgreSQL sequences are not commit-ordered) is not skipped by a reader's cursor.
 */
import type { Kysely, Selectable } from 'kysely';
import type { RevocationEvent } from '@gatehouse/contracts';
import type { AuthSchema, TokenRevocationsTable } from '../storage/schema.ts';

export interface TokenStatusQuery {
  jti?: string | undefined;
  grantId?: string | undefined;
  sub?: string | undefined;
  /** Issued-at of the token, epoch seconds. */
  iat?: number | undefined;
}

export interface RevocationStore {
  revokeToken(jti: string, expiresAtMs: number): Promise<void>;
  revokeGrant(grantId: string, expiresAtMs: number): Promise<void>;
  revokeSubject(sub: string, issuedBeforeMs: number, expiresAtMs: number): Promise<void>;
  isRevoked(token: TokenStatusQuery): Promise<boolean>;
  /** Feed entries after `cursor`, oldest first, at most `limit`. */
  since(cursor: number, limit: number): Promise<RevocationEvent[]>;
  purgeExpired(): Promise<number>;
}

export const FEED_SETTLE_MS = 1_000;

const seconds = (ms: number) => Math.floor(ms / 1000);

function toEvent(row: Selectable<TokenRevocationsTable>): RevocationEvent | undefined {
  const id = Number(row.id);
  const exp = seconds(Number(row.expires_at));
  if (row.type === 'token' && row.jti) return { id, type: 'token-revoked', jti: row.jti, exp };
  if (row.type === 'grant' && row.grant_id) return { id, type: 'session-revoked', grant_id: row.grant_id, exp };
  if (row.type === 'subject' && row.subject && row.issued_before !== null) {
    return { id, type: 'account-disabled', sub: row.subject, issued_before: seconds(Number(row.issued_before)), exp };
  }
  return undefined;
}

export function createRevocationStore(db: Kysely<AuthSchema>, clock: () => number, settleMs = FEED_SETTLE_MS): RevocationStore {
  const insert = (row: Omit<TokenRevocationsTable, 'id' | 'created_at'>) =>
    db.insertInto('token_revocations').values({ ...row, created_at: clock() }).execute().then(() => undefined);

  return {
    revokeToken: (jti, expiresAt) => insert({ type: 'token', jti, grant_id: null, subject: null, issued_before: null, expires_at: expiresAt }),
    revokeGrant: (grantId, expiresAt) => insert({ type: 'grant', jti: null, grant_id: grantId, subject: null, issued_before: null, expires_at: expiresAt }),
    revokeSubject: (sub, issuedBefore, expiresAt) =>
      insert({ type: 'subject', jti: null, grant_id: null, subject: sub, issued_before: issuedBefore, expires_at: expiresAt }),

    async isRevoked({ jti, grantId, sub, iat }) {
      if (!jti && !grantId && !(sub && iat !== undefined)) return false;
      const row = await db
        .selectFrom('token_revocations')
        .select('id')
        .where('expires_at', '>', clock())
        .where((eb) =>
          eb.or([
            ...(jti ? [eb.and([eb('type', '=', 'token'), eb('jti', '=', jti)])] : []),
            ...(grantId ? [eb.and([eb('type', '=', 'grant'), eb('grant_id', '=', grantId)])] : []),
            ...(sub && iat !== undefined
              ? [eb.and([eb('type', '=', 'subject'), eb('subject', '=', sub), eb('issued_before', '>', iat * 1000)])]
              : []),
          ]),
        )
        .executeTakeFirst();
      return row !== undefined;
    },

    async since(cursor, limit) {
      const rows = await db
        .selectFrom('token_revocations')
        .selectAll()
        .where('id', '>', cursor)
        .where('created_at', '<=', clock() - settleMs)
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toEvent).filter((e): e is RevocationEvent => e !== undefined);
    },

    async purgeExpired() {
      const result = await db.deleteFrom('token_revocations').where('expires_at', '<=', clock()).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
