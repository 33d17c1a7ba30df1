/**
 * The token path's unit of work: the lookups oidc-provider and the stores make one after the other
 * in one token request, answered by as few statements as can answer them (each statement is a round
 * trip to PostgreSQL; bench/README.md, "Token path"). Rules:
 * - it wraps, where the services are composed (services.ts), the store methods it answers:
 *   clients.find, accounts.findById, the scope policies' list and the oidc payloads' finds; the
 *   stores themselves know nothing of it;
 * - inside an oidc-provider request, a client lookup reads the client with every scope policy row
 *   in one statement; in a refresh request (grant_type refresh_token), the same statement also
 *   reads the presented refresh token with its Grant, its Session (by the token's sessionUid) and
 *   its account, unless the client row may be reused (below): then the one statement reads only
 *   the token with those three; a RefreshToken lookup not answered so reads the token with those three;
 * - what such a statement read beyond the row asked for is kept for the same request only, by typed
 *   key (request-rows.ts), and answers the next lookup of that row once; another request, and code
 *   outside a request (CLI, admin API), read the database;
 * - every write through the wrapped payload store drops the payload rows kept for the request;
 * - a client row with its policy rows (read alone or with a refresh token) is reused across
 *   requests while the version of the clients and policies stays (clients/client-change-tracker.ts),
 *   at most CLIENT_ROWS_KEPT rows; a change by any process moves the version (another process's on
 *   SQLite from the next event-loop turn: Database.othersVersion), and a missing client is never kept;
 * - nothing is answered that the database would not have answered in the same request: a removed
 *   client, a disabled account, a policy change or a revocation acts at the very next request.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { precompile, precompileSql, type Engine } from '@gatehouse/db';
import { accountFromRow, type AccountStore } from '../accounts/account-store.ts';
import type { ClientRecord, ClientStore } from '../clients/client-store.ts';
import type { ClientChangeTracker } from '../clients/client-change-tracker.ts';
import type { ScopePolicy, ScopePolicyStore } from '../policy/scope-policy-store.ts';
import { ACCOUNT_COLUMNS, OIDC_PAYLOAD_COLUMNS, SCOPE_POLICY_COLUMNS, type AccountsTable, type AuthSchema, type ClientsTable } from '../storage/schema.ts';
import type { PayloadRow, PayloadStore } from './payload-store.ts';
import { createRequestRows } from './request-rows.ts';

/** What each kind of row kept for a request is (undefined: read, and known absent). */
interface KeptRows {
  /** Every scope policy, read with the request's client (one entry, id {@link ALL}). */
  scopePolicies: ScopePolicy[];
  /** An account row by id, read with a refresh token. */
  account: Selectable<AccountsTable> | undefined;
  /** oidc_payloads rows by id (RefreshToken, Grant) or uid (Session), read with a refresh token. */
  RefreshToken: PayloadRow | undefined;
  Grant: PayloadRow | undefined;
  Session: PayloadRow | undefined;
}

const ALL = '';
const PAYLOAD_KINDS = ['RefreshToken', 'Grant', 'Session'] as const satisfies readonly (keyof KeptRows)[];

/** Most client rows kept for reuse while the data is unchanged; past it they are all dropped. */
export const CLIENT_ROWS_KEPT = 1024;

/** The column carrying the policy rows read with a client. */
export const POLICY_ROWS_COLUMN = 'scope_policy_rows';

/** The n-th parameter of a raw statement, per engine (numbered on both: a value may come first in the text). */
const PARAM: Record<Engine, (n: number) => string> = { sqlite: (n) => `?${n}`, postgres: (n) => `$${n}` };

/** A scalar subquery: every policy row, as one JSON text of arrays of SCOPE_POLICY_COLUMNS. */
function policyRowsSql(engine: Engine): string {
  const columns = SCOPE_POLICY_COLUMNS.join(', ');
  return engine === 'postgres'
    ? `select coalesce(json_agg(json_build_array(${columns})), '[]'::json)::text from scope_policies`
    : `select json_group_array(json_array(${columns})) from scope_policies`;
}

/**
 * A RefreshToken (its id: parameter `n`) with its Grant, its Session (by the token's sessionUid)
 * and its account, in one statement: one row, each of the three left-joined (absent: nulls), the
 * token's columns prefixed `r_` (with its grant id, session uid and account id, the keys of the
 * three), the others `g_`, `s_` and `a_`.
 */
function refreshTokenWithRelatedSql(engine: Engine, n: number): string {
  const payload = (alias: string) => OIDC_PAYLOAD_COLUMNS.map((c) => `${alias}.${c} as ${alias}_${c}`).join(', ');
  const account = ACCOUNT_COLUMNS.map((c) => `a.${c} as a_${c}`).join(', ');
  return (
    `select ${payload('r')}, r.grant_id as r_grant_id, r.session_uid as r_session_uid, r.account_id as r_account_id, ${payload('g')}, ${payload('s')}, ${account} ` +
    'from oidc_payloads r ' +
    "left join oidc_payloads g on g.model = 'Grant' and g.id = r.grant_id " +
    "left join oidc_payloads s on s.model = 'Session' and s.uid = r.session_uid " +
    'left join accounts a on a.id = r.account_id ' +
    `where r.model = 'RefreshToken' and r.id = ${PARAM[engine](n)}`
  );
}

/**
 * A refresh request's client (parameter 1) with the policy rows and the presented refresh token
 * (parameter 2) with its grant, session and account: one statement. No row when the client does
 * not exist; the token's columns are null when it does not.
 */
function clientWithRefreshTokenSql(engine: Engine): string {
  return `select c.*, (${policyRowsSql(engine)}) as ${POLICY_ROWS_COLUMN}, x.* from clients c left join (${refreshTokenWithRelatedSql(engine, 2)}) x on 1 = 1 where c.client_id = ${PARAM[engine](1)}`;
}

type ClientWithPolicies = Selectable<ClientsTable> & Record<typeof POLICY_ROWS_COLUMN, string>;
type Joined = Record<string, unknown>;

/** The columns refreshTokenWithRelatedSql adds to a client row. */
const TOKEN_PATH_COLUMNS: ReadonlySet<string> = new Set([
  ...['r', 'g', 's'].flatMap((alias) => OIDC_PAYLOAD_COLUMNS.map((c) => `${alias}_${c}`)),
  'r_grant_id',
  'r_session_uid',
  'r_account_id',
  ...ACCOUNT_COLUMNS.map((c) => `a_${c}`),
]);

/** The account columns (`a_`) of a joined row, as the account store's row. */
function accountPart(row: Joined): Selectable<AccountsTable> {
  const account: Record<string, unknown> = {};
  for (const column of ACCOUNT_COLUMNS) account[column] = row[`a_${column}`];
  return account as unknown as Selectable<AccountsTable>;
}

/** The client row with its policy rows, without the refresh token's columns read along with it. */
function clientPart(row: ClientWithPolicies & Joined): ClientWithPolicies {
  return Object.fromEntries(Object.entries(row).filter(([column]) => !TOKEN_PATH_COLUMNS.has(column))) as ClientWithPolicies;
}

/** The policy rows packed by policyRowsSql, ordered by scope; undefined when not in that shape. */
function policiesOf(text: string): ScopePolicy[] | undefined {
  const value = JSON.parse(text) as unknown;
  if (!Array.isArray(value)) return undefined;
  const policies: ScopePolicy[] = [];
  for (const row of value as unknown[]) {
    if (!Array.isArray(row) || typeof row[0] !== 'string' || typeof row[1] !== 'string') return undefined;
    policies.push({ scope: row[0], groups: JSON.parse(row[1]) as string[], updatedAt: Number(row[2]) });
  }
  return policies.sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
}

export interface TokenPathReadsDeps {
  db: Kysely<AuthSchema>;
  engine: Engine;
  /** The oidc-provider request being served (an object unique to it), or undefined. */
  currentRequest: () => object | undefined;
  /** The refresh token the request being served presents, when it is a refresh. */
  refreshTokenOfRequest: () => string | undefined;
  /** A client row as clients.find() returns it (client-store.ts). */
  clientOfRow: (row: Selectable<ClientsTable>) => ClientRecord;
  /** When a kept client row may be reused; without it, every client lookup reads. */
  changes?: Pick<ClientChangeTracker, 'version'>;
}

/** Each wraps a store so that the lookups this unit of work can answer are answered by it. */
export interface TokenPathReads {
  clients(store: ClientStore): ClientStore;
  accounts(store: AccountStore): AccountStore;
  scopePolicies(store: ScopePolicyStore): ScopePolicyStore;
  payloads(store: PayloadStore): PayloadStore;
}

export function createTokenPathReads(deps: TokenPathReadsDeps): TokenPathReads {
  const { db, engine } = deps;
  const kept = createRequestRows<KeptRows>(deps.currentRequest);
  const clientWithPolicies = precompile(db, ['clientId'], (v) =>
    db
      .selectFrom('clients')
      .selectAll()
      .select(sql<string>`(${sql.raw(policyRowsSql(engine))})`.as(POLICY_ROWS_COLUMN))
      .where('client_id', '=', v.clientId),
  );
  const clientWithRefreshToken = precompileSql<ClientWithPolicies & Joined>(db, clientWithRefreshTokenSql(engine));
  const refreshTokenWithRelated = precompileSql<Joined>(db, refreshTokenWithRelatedSql(engine, 1));

  /** The token of a joined row; its Grant, Session and account kept for this request's next lookups. */
  function keepRelated(row: Joined): PayloadRow | undefined {
    const part = (alias: string): PayloadRow | undefined =>
      row[`${alias}_payload`] === null || row[`${alias}_payload`] === undefined
        ? undefined
        : { payload: row[`${alias}_payload`] as string, consumed_at: row[`${alias}_consumed_at`] as number | null, expires_at: row[`${alias}_expires_at`] as number | null };
    const token = part('r');
    if (!token) return undefined;
    if (typeof row.r_grant_id === 'string') kept.put('Grant', row.r_grant_id, part('g'));
    if (typeof row.r_session_uid === 'string') kept.put('Session', row.r_session_uid, part('s'));
    if (typeof row.r_account_id === 'string') kept.put('account', row.r_account_id, row.a_id === null || row.a_id === undefined ? undefined : accountPart(row));
    return token;
  }

  // The policy rows of a client row, parsed once per row read: a kept row answers many requests.
  // The lists are frozen, as they are shared by those requests.
  const parsedPolicies = new WeakMap<ClientWithPolicies, ScopePolicy[] | undefined>();
  function policiesOfRow(row: ClientWithPolicies): ScopePolicy[] | undefined {
    if (parsedPolicies.has(row)) return parsedPolicies.get(row);
    const parsed = policiesOf(row[POLICY_ROWS_COLUMN]);
    // Frozen at run time; the store's type (a plain list) is kept for its readers, which only read.
    const frozen = parsed && (Object.freeze(parsed.map((policy) => Object.freeze({ ...policy, groups: Object.freeze(policy.groups) as string[] }))) as ScopePolicy[]);
    parsedPolicies.set(row, frozen);
    return frozen;
  }

  // Client rows with their policy rows, each kept with the version of the data it was read at. The
  // version is taken before the read: a change committed during the read moves it after, so the
  // row is not reused.
  const clientRows = new Map<string, { version: number; row: ClientWithPolicies }>();
  async function readClientWithPolicies(clientId: string): Promise<ClientWithPolicies | undefined> {
    const version = deps.changes?.version();
    const hit = version === undefined ? undefined : clientRows.get(clientId);
    if (hit && hit.version === version) return hit.row;
    const row = (await clientWithPolicies({ clientId })).rows[0];
    if (version !== undefined) keepClientRow(clientId, version, row);
    return row;
  }

  function keepClientRow(clientId: string, version: number, row: ClientWithPolicies | undefined): void {
    if (row) {
      if (clientRows.size >= CLIENT_ROWS_KEPT) clientRows.clear();
      clientRows.set(clientId, { version, row });
    } else clientRows.delete(clientId);
  }

  async function readClientWithRefreshToken(clientId: string, refreshToken: string): Promise<ClientWithPolicies | undefined> {
    const version = deps.changes?.version();
    const hit = version === undefined ? undefined : clientRows.get(clientId);
    if (hit && hit.version === version) {
      const joined = (await refreshTokenWithRelated([refreshToken])).rows[0];
      kept.put('RefreshToken', refreshToken, joined && keepRelated(joined));
      return hit.row;
    }
    const row = (await clientWithRefreshToken([clientId, refreshToken])).rows[0];
    if (row) kept.put('RefreshToken', refreshToken, keepRelated(row));
    if (version !== undefined) keepClientRow(clientId, version, row && clientPart(row));
    return row;
  }

  return {
    clients: (store) => ({
      ...store,
      async find(clientId) {
        if (!kept.active()) return store.find(clientId);
        const refreshToken = deps.refreshTokenOfRequest();
        const row = refreshToken === undefined ? await readClientWithPolicies(clientId) : await readClientWithRefreshToken(clientId, refreshToken);
        if (!row) return undefined;
        const policies = policiesOfRow(row);
        if (policies) kept.put('scopePolicies', ALL, policies);
        return deps.clientOfRow(row);
      },
    }),
    accounts: (store) => ({
      ...store,
      async findById(id) {
        const row = kept.take('account', id);
        if (row) return row.value && accountFromRow(row.value);
        return store.findById(id);
      },
    }),
    scopePolicies: (store) => ({
      ...store,
      async list() {
        return kept.take('scopePolicies', ALL)?.value ?? store.list();
      },
    }),
    payloads: (store) => {
      const forgetting =
        <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
        (...args: A): Promise<R> => {
          kept.forget(PAYLOAD_KINDS);
          return write(...args);
        };
      return {
        ...store,
        async find(model, id) {
          if (model === 'RefreshToken' || model === 'Grant') {
            const row = kept.take(model, id);
            if (row) return row.value;
            if (model === 'RefreshToken' && kept.active()) {
              const joined = (await refreshTokenWithRelated([id])).rows[0];
              return joined && keepRelated(joined);
            }
          }
          return store.find(model, id);
        },
        async findByUid(model, uid) {
          const row = model === 'Session' ? kept.take('Session', uid) : undefined;
          return row ? row.value : store.findByUid(model, uid);
        },
        upsert: forgetting(store.upsert),
        insertOnce: forgetting(store.insertOnce),
        consume: forgetting(store.consume),
        consumeAndUpsert: forgetting(store.consumeAndUpsert),
        destroy: forgetting(store.destroy),
        revokeByGrantId: forgetting(store.revokeByGrantId),
      };
    },
  };
}
