/**
 * The authorization server as a fuzz target: a real createApp() on a throw-away SQLite database,
 * on a random loopback port, with the real credentials an attacker would start from. Rules:
 * - the injected clock is frozen, so no lazy purge or key rotation runs during a fuzz run and
 *   every state change is the answer to the request just sent;
 * - every table carries SQLite triggers counting its writes (an UPDATE only when a value changes;
 *   see updateCondition for oidc-provider's re-save of the SSO session); the snapshot is those counters, so
 *   a refused request that inserts, deletes or changes anything is caught, at O(1) per request;
 * - "no state change from a refused request" (status >= 400) has exactly two exceptions, both
 *   required by the contract and absorbed by `check` before the harness compares snapshots:
 *   1. a counted sign-in failure (401 invalid_credentials / invalid_code / code_replayed on /login
 *      or /mfa/verify) records a row in regulation_failures: that is the lockout working;
 *   2. replaying an authorization code or a refresh token that was already used (400 invalid_grant
 *      at the token endpoint) revokes the grant issued from it (RFC 6749 §4.1.2, RFC 9700 §4.14.2),
 *      which writes oidc_payloads and token_revocations;
 *   and regulation_failures is written by nothing else, not even by a request that succeeds;
 * - the fixtures are real: a signed-in browser (session cookie), an enrolled software
 *   authenticator, live interactions at the password and at the second-factor step, a finished
 *   (stale) interaction, an unused code bound to an S256 challenge whose verifier the fuzz never
 *   sends, a used code, access/ID/refresh tokens, and a refresh token already rotated.
 */
import { createHmac } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { FuzzRequest, FuzzResponse } from '@gatehouse/fuzz';
import { authorizeUrl, basic, codeFrom, CookieJar, exchange, pkcePair, refresh, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { enrollDevice, passwordStep, type SoftwareAuthenticator } from '../support/push.ts';
import { errorCode, pathOf } from './auth-contract.ts';

const COUNTER_TABLE = 'fuzz_writes';

/** Refusals that may record a sign-in failure (regulation/regulator.ts). */
const COUNTED_FAILURES = new Set(['invalid_credentials', 'invalid_code', 'code_replayed']);

export type Cookie = readonly [name: string, value: string];

export interface AuthFixtures {
  readonly issuer: string;
  readonly testClient: TestAuthServer['testClient'];
  readonly introspectionClient: TestAuthServer['introspectionClient'];
  /** Usernames and passwords of real accounts. */
  readonly users: readonly { username: string; password: string }[];
  /** Cookies of a browser signed in at the authorization server (SSO session). */
  readonly sessionCookies: readonly Cookie[];
  /** Cookies and uid of an interaction waiting for the password. */
  readonly loginStep: { cookies: readonly Cookie[]; uid: string };
  /** Cookies and uid of an interaction whose password step passed (second factor next). */
  readonly mfaStep: { cookies: readonly Cookie[]; uid: string };
  /** Cookies and uid of an interaction that already finished. */
  readonly staleInteraction: { cookies: readonly Cookie[]; uid: string };
  /** An unused code bound to an S256 challenge (its verifier is never handed out). */
  readonly freshCode: string;
  /** A code that was already exchanged. */
  readonly usedCode: string;
  readonly accessToken: string;
  readonly idToken: string;
  readonly refreshToken: string;
  /** A refresh token that was already rotated (replaying it revokes its grant). */
  readonly rotatedRefreshToken: string;
  readonly deviceId: string;
  /** Signed authenticator list queries (`device_id`, `ts`, `nonce`, `sig`), each usable once. */
  readonly signedQueries: readonly string[];
  /** An id of a push started by the second-factor interaction. */
  readonly pushId: string;
  /** `name=value` signed with the server's cookie key, as oidc-provider signs its cookies. */
  sign(name: string, value: string): Cookie[];
  /** Valid Basic credentials of the confidential clients. */
  readonly basicAuth: readonly string[];
}

export interface AuthFuzzServer {
  readonly server: TestAuthServer;
  readonly url: string;
  readonly fixtures: AuthFixtures;
  /** Write counters of every table (harness `snapshot`). */
  snapshot(): Promise<string>;
  /** The state-change rules above, for the harness `check`. */
  stateCheck(request: FuzzRequest, response: FuzzResponse): Promise<string[]>;
  close(): Promise<void>;
}

const SESSION_LOG = 'fuzz_session_updates';

/**
 * An UPDATE counts only when a column really changes. Updates of an SSO session row that touch
 * only its payload and expiry are logged instead (SESSION_LOG) and judged in JS: oidc-provider
 * re-saves the session at the end of every request through its session middleware (authorize,
 * logout), refused ones included, with a later `exp` (its sliding expiry) and its keys in another
 * order. That is not a change a request makes on purpose; any other change of the payload is.
 */
function updateCondition(table: string, columns: readonly string[]): { count: string; log?: string } {
  const changed = columns.map((c) => `OLD."${c}" IS NOT NEW."${c}"`).join(' OR ');
  if (table !== 'oidc_payloads') return { count: changed };
  const sessionResave = `OLD.model = 'Session' AND NEW.model = 'Session' AND ${columns
    .filter((c) => c !== 'payload' && c !== 'expires_at')
    .map((c) => `OLD."${c}" IS NEW."${c}"`)
    .join(' AND ')}`;
  return { count: `(${changed}) AND NOT (${sessionResave})`, log: `(${changed}) AND (${sessionResave})` };
}

async function installWriteCounters(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(db);
  await sql.raw(`CREATE TABLE ${COUNTER_TABLE} (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL)`).execute(db);
  await sql.raw(`CREATE TABLE ${SESSION_LOG} (old_payload TEXT, new_payload TEXT)`).execute(db);
  for (const { name: table } of rows) {
    const columns = (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(db)).rows.map((r) => r.name);
    await sql`INSERT INTO ${sql.table(COUNTER_TABLE)} (tbl, n) VALUES (${table}, 0)`.execute(db);
    const bump = `UPDATE ${COUNTER_TABLE} SET n = n + 1 WHERE tbl = '${table}';`;
    await sql.raw(`CREATE TRIGGER fuzz_${table}_insert AFTER INSERT ON "${table}" BEGIN ${bump} END`).execute(db);
    await sql.raw(`CREATE TRIGGER fuzz_${table}_delete AFTER DELETE ON "${table}" BEGIN ${bump} END`).execute(db);
    const update = updateCondition(table, columns);
    await sql.raw(`CREATE TRIGGER fuzz_${table}_update AFTER UPDATE ON "${table}" WHEN ${update.count} BEGIN ${bump} END`).execute(db);
    if (update.log) {
      await sql
        .raw(`CREATE TRIGGER fuzz_${table}_resave AFTER UPDATE ON "${table}" WHEN ${update.log} BEGIN INSERT INTO ${SESSION_LOG} VALUES (OLD.payload, NEW.payload); END`)
        .execute(db);
    }
  }
}

/** A session payload without its expiry, keys sorted. */
function sessionWithoutExpiry(payload: string): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value && typeof value === 'object'
        ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted((value as Record<string, unknown>)[k])]))
        : value;
  const { exp: _exp, ...rest } = JSON.parse(payload) as Record<string, unknown>;
  return JSON.stringify(sorted(rest));
}

/** Counts the logged session re-saves that changed more than the expiry as oidc_payloads writes. */
async function judgeSessionResaves(db: Kysely<unknown>, counters: Map<string, number>, judged: { n: number; last?: string }): Promise<void> {
  const { rows } = await sql<{ old_payload: string; new_payload: string }>`SELECT old_payload, new_payload FROM ${sql.table(SESSION_LOG)}`.execute(db);
  if (rows.length > 0) {
    await sql`DELETE FROM ${sql.table(SESSION_LOG)}`.execute(db);
    for (const r of rows) {
      const before = sessionWithoutExpiry(r.old_payload);
      const after = sessionWithoutExpiry(r.new_payload);
      if (before === after) continue;
      judged.n += 1;
      judged.last = `SSO session ${before.slice(0, 600)} became ${after.slice(0, 600)}`;
    }
  }
  counters.set('oidc_payloads', (counters.get('oidc_payloads') ?? 0) + judged.n);
}

async function readCounters(db: Kysely<unknown>): Promise<Map<string, number>> {
  const { rows } = await sql<{ tbl: string; n: number }>`SELECT tbl, n FROM ${sql.table(COUNTER_TABLE)}`.execute(db);
  return new Map(rows.map((r) => [r.tbl, Number(r.n)]));
}

const cookiesOf = (jar: CookieJar): Cookie[] => [...jar.cookies.entries()];

/** Starts the server and builds the fixtures. `env` goes to loadConfig (e.g. regulation limits). */
export async function startAuthFuzzServer(env: Record<string, string> = {}): Promise<AuthFuzzServer> {
  const now = Date.now();
  const clock = () => now;
  const server = await startServer({ clock, env });
  const db = server.database.db as unknown as Kysely<unknown>;
  const { issuer } = server;

  // A signed-in browser with an enrolled authenticator (user 1).
  const deviceUser = await server.createUser();
  const enrolled = await enrollDevice(server, deviceUser, clock);
  const authenticator: SoftwareAuthenticator = enrolled.authenticator;
  const signedQueries = await Promise.all(Array.from({ length: 4 }, () => authenticator.signedQuery()));

  // Codes and tokens from a full sign-in with PKCE (user 2), one code left unused.
  const tokenUser = await server.createUser();
  const tokenJar = new CookieJar();
  const pkce = pkcePair();
  const done = await signIn(server, tokenJar, tokenUser, authorizeUrl(server, { challenge: pkce.challenge }), now);
  const usedCode = codeFrom(done.location);
  const tokens = await exchange(server, usedCode, { code_verifier: pkce.verifier });
  if (tokens.status !== 200) throw new Error(`token exchange answered ${tokens.status}`);
  const rotated = await refresh(server, String(tokens.body.refresh_token));
  if (rotated.status !== 200) throw new Error(`refresh answered ${rotated.status}`);
  const fresh = pkcePair();
  const again = await request(tokenJar, authorizeUrl(server, { challenge: fresh.challenge, prompt: 'none' }));
  const freshCode = codeFrom(again.location);

  // Interactions: one waiting for the password, one at the second factor with a push, one finished.
  const loginJar = new CookieJar();
  const loginPage = await request(loginJar, authorizeUrl(server));
  const mfaUser = deviceUser;
  const mfa = await passwordStep(server, mfaUser);
  const push = await request(mfa.jar, `${issuer}/mfa/verify`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"method":"push"}' });
  if (push.status !== 200) throw new Error(`push answered ${push.status}: ${push.text}`);
  const pushId = String(push.json<{ poll: string }>().poll).split('/').pop()!;
  const staleUser = await server.createUser();
  const staleJar = new CookieJar();
  const stalePage = await request(staleJar, authorizeUrl(server));
  const staleUid = uidOf(stalePage.text);
  const staleCookies = cookiesOf(staleJar);
  const staleForm = { 'content-type': 'application/x-www-form-urlencoded' };
  const staleLogin = await request(staleJar, `${issuer}/login`, { method: 'POST', headers: staleForm, body: new URLSearchParams({ uid: staleUid, username: staleUser.username, password: staleUser.password }).toString() });
  if (staleLogin.status !== 200) throw new Error(`login answered ${staleLogin.status}`);
  const staleCode = await server.app.services.totp.generate(staleUser.totpSecret, now);
  const finished = await request(staleJar, `${issuer}/mfa/verify`, { method: 'POST', headers: staleForm, body: new URLSearchParams({ uid: staleUid, code: staleCode }).toString() });
  if (finished.status !== 302) throw new Error(`mfa/verify answered ${finished.status}`);

  const key = server.config.cookieKeys[0]!;
  const fixtures: AuthFixtures = {
    issuer,
    testClient: server.testClient,
    introspectionClient: server.introspectionClient,
    users: [deviceUser, tokenUser].map(({ username, password }) => ({ username, password })),
    sessionCookies: cookiesOf(enrolled.jar),
    loginStep: { cookies: cookiesOf(loginJar), uid: uidOf(loginPage.text) },
    mfaStep: { cookies: cookiesOf(mfa.jar), uid: mfa.uid },
    staleInteraction: { cookies: staleCookies, uid: staleUid },
    freshCode,
    usedCode,
    accessToken: String(tokens.body.access_token),
    idToken: String(tokens.body.id_token),
    refreshToken: String(rotated.body.refresh_token),
    rotatedRefreshToken: String(tokens.body.refresh_token),
    deviceId: authenticator.deviceId,
    signedQueries,
    pushId,
    sign: (name, value) => [
      [name, value],
      [`${name}.sig`, createHmac('sha1', key).update(`${name}=${value}`).digest('base64url')],
    ],
    basicAuth: [basic(server.testClient.clientId, server.testClient.clientSecret), basic(server.introspectionClient.clientId, server.introspectionClient.clientSecret)],
  };

  await installWriteCounters(db);
  const offsets = new Map<string, number>();
  const resaves: { n: number; last?: string } = { n: 0 };
  const counters = async () => {
    const counted = await readCounters(db);
    await judgeSessionResaves(db, counted, resaves);
    return counted;
  };
  let last = await counters();
  const replays = [fixtures.usedCode, fixtures.rotatedRefreshToken];

  const report = (counters: Map<string, number>) =>
    [...counters]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([table, n]) => `${table}:${n - (offsets.get(table) ?? 0)}`)
      .join(' ');

  return {
    server,
    url: issuer,
    fixtures,
    async snapshot() {
      last = await counters();
      return report(last);
    },
    async stateCheck(request, response) {
      resaves.last = undefined;
      const now = await counters();
      const changed = [...now].filter(([table, n]) => n !== last.get(table)).map(([table]) => table);
      if (changed.length === 0) return [];
      const code = errorCode(response);
      const path = pathOf(request);
      const problems: string[] = [];
      const allowed = new Set<string>();
      const counted = response.status === 401 && (path === '/login' || path === '/mfa/verify') && code !== undefined && COUNTED_FAILURES.has(code);
      if (changed.includes('regulation_failures')) {
        if (counted) allowed.add('regulation_failures');
        else problems.push(`regulation_failures was written by a request that is not a counted sign-in failure (${response.status} ${code ?? ''})`);
      }
      const body = typeof request.body === 'string' ? request.body : (request.body?.toString('latin1') ?? '');
      const replay = response.status === 400 && code === 'invalid_grant' && path === '/oauth2/v1/token' && replays.some((r) => body.includes(r));
      if (replay) for (const table of ['oidc_payloads', 'token_revocations']) allowed.add(table);
      // Absorb the allowed changes of a refused request so the harness's snapshot comparison sees none.
      if (response.status >= 400) {
        for (const table of allowed) offsets.set(table, (offsets.get(table) ?? 0) + (now.get(table)! - last.get(table)!));
        const unexpected = changed.filter((t) => !allowed.has(t));
        if (unexpected.length > 0) {
          problems.push(`the refused request (${response.status} ${code ?? ''}) wrote ${unexpected.join(', ')}`);
          if (resaves.last) problems.push(resaves.last);
        }
      }
      return problems;
    },
    close: () => server.close(),
  };
}
