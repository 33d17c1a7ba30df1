/**
 * The authorization server as a fuzz target: a real createApp() on a throw-away SQLite database,
 * on a random loopback port, with the real credentials an attacker would start from. Rules:
 * - the injected clock is frozen, so no lazy purge or key rotation runs during a fuzz run and
 *   every state change is the answer to the request just sent;
 * - every table carries SQLite triggers counting its writes (an UPDATE only when a value changes;
 *   see updateCondition for oidc-provider's re-save of the SSO session); the snapshot is those counters, so
 *   a refused request that inserts, deletes or changes anything is caught, at O(1) per request;
 * - "no state change from a refused request" (status >= 400) has exactly four exceptions, all
 *   required by the contract and absorbed by `check` before the harness compares snapshots:
 *   1. a counted sign-in failure (COUNTED_FAILURES: 401 invalid_credentials on /login; 401
 *      invalid_code, code_replayed or passkey_* on /mfa/verify; 401 passkey_* on /login/passkey;
 *      401 invalid_current_password, invalid_code or code_replayed on the account page's forms)
 *      records rows in regulation_failures: that is the lockout working; it must, every time;
 *   2. a refused passkey answer that used up its single-use challenge deletes it from
 *      passkey_challenges (mayTakeChallenge);
 *   3. replaying an authorization code or a refresh token that was already used (400 invalid_grant
 *      at the token endpoint: the used code, the rotated refresh token, and the current one once
 *      the run itself refreshed with it) revokes the grant issued from it (RFC 6749 §4.1.2,
 *      RFC 9700 §4.14.2), which writes oidc_payloads and token_revocations;
 *   4. audit_events: the stored audit trail (audit/) records refused requests like any other;
 *      it is written just after the answer, so the counters are read after flushing it;
 *   5. the device flow's code form (/activate, oidc/device-flow.ts) answers every refusal with the
 *      form again, whose fresh form token oidc-provider stores in the browser's session
 *      (oidc_payloads), and a code that is not found (400 user_code_not_found) is a counted
 *      guess (oidc/user-code-regulation.ts), recorded in regulation_failures every time;
 *   and regulation_failures is written by nothing else (a device code's polls and issue time are
 *   kept there too, oidc/device-grant-answers.ts, which the fuzz, holding no device code, never
 *   reaches): not by a 429 (nothing is recorded while a
 *   key waits or is locked), not even by a request that succeeds;
 * - the fixtures are real: a signed-in browser (session cookie, known-device cookie, a registered
 *   passkey), an enrolled software authenticator, live interactions at the password and at the
 *   second-factor step, a finished (stale) interaction, an unused code bound to an S256 challenge
 *   whose verifier the fuzz never sends, a used code, access/ID/refresh tokens, and a refresh
 *   token already rotated;
 * - passkey answers answer the latest challenges the run's own options requests got (the store
 *   keeps five per binding) and are refused: none is a valid registration or passwordless
 *   assertion, so the live interactions and the registered passkey last the run. (One may pass
 *   as a second factor: an answer without user verification to the password-step interaction,
 *   after the fuzz itself passed that step's password as the passkey's owner; that only ends
 *   that interaction.)
 */
import { createHmac, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { FuzzRequest, FuzzResponse } from '@gatehouse/fuzz';
import { authorizeUrl, basic, codeFrom, CookieJar, exchange, pkcePair, refresh, request, signIn, startServer, uidOf, type TestAuthServer } from '../support/flow.ts';
import { enrollDevice, passwordStep, type SoftwareAuthenticator } from '../support/push.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { KNOWN_DEVICE_COOKIE } from '../../src/regulation/known-device.ts';
import { errorCode, pathOf } from './auth-contract.ts';

const COUNTER_TABLE = 'fuzz_writes';

/** The passkey assertion refusals (passkeys/passkey-policy.ts, docs/spec.md §10.9). */
const PASSKEY_REFUSALS = ['passkey_challenge_invalid', 'passkey_unknown', 'passkey_invalid', 'passkey_user_not_verified', 'passkey_cloned'];

/**
 * The 401 refusals that record a sign-in failure, by path (regulation/regulator.ts through
 * regulation/regulate-attempt.ts, the one step of the password, second-factor and passkey sign-ins):
 * each of them writes regulation_failures, and nothing else does.
 */
const COUNTED_FAILURES: Readonly<Record<string, ReadonlySet<string>>> = {
  '/login': new Set(['invalid_credentials']),
  '/mfa/verify': new Set(['invalid_code', 'code_replayed', ...PASSKEY_REFUSALS]),
  '/login/passkey': new Set(PASSKEY_REFUSALS),
  // The account page proves the current credentials again under the login's regulation (account/reauthenticate.ts).
  '/account/password': new Set(['invalid_current_password']),
  '/account/totp': new Set(['invalid_current_password', 'invalid_code', 'code_replayed']),
  '/account/totp/confirm': new Set(['invalid_code']),
  // A wrong user code at the device flow's form (400, not 401: oidc/user-code-regulation.ts).
  '/activate': new Set(['user_code_not_found']),
};

/** A refusal of the device flow's code form that shows the form again (exception 5). */
const offersCodeFormAgain = (path: string, response: FuzzResponse) =>
  (path === '/activate' || path.startsWith('/activate/')) && response.status === 400 && response.text.includes('id="activate-form"');

/** Where a refused passkey answer may have used up the challenge it answered (single use: passkeys/challenge-store.ts). */
const CHALLENGE_TAKERS = new Set(['/login/passkey', '/mfa/verify', '/authenticator/passkeys']);

/**
 * Whether a refusal may come after its challenge was taken: every passkey refusal but an unknown
 * challenge (nothing taken), a registration already known (409), and the 429 of a passwordless
 * sign-in whose credential named an account that waits or is locked (checked once the credential
 * is known, after the challenge is taken).
 */
function mayTakeChallenge(path: string, status: number, code: string | undefined): boolean {
  if (!CHALLENGE_TAKERS.has(path)) return false;
  if (status === 429) return path === '/login/passkey' && code === 'too_many_attempts';
  if (status === 409) return path === '/authenticator/passkeys' && code === 'passkey_already_registered';
  return code !== undefined && code !== 'passkey_challenge_invalid' && PASSKEY_REFUSALS.includes(code) && status === (path === '/authenticator/passkeys' ? 400 : 401);
}

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
  /** The known-device cookie (`gatehouse.device`) the signed-in browser got from its sign-in, and variants. */
  readonly device: KnownDeviceFixtures;
  /** The signed-in user's registered passkey and refused answers to live challenges. */
  readonly passkey: PasskeyFixtures;
}

export interface KnownDeviceFixtures {
  /** The real cookie value (one token, for the signed-in user). */
  readonly real: string;
  /** A well-formed token with a valid MAC that expired, and one whose MAC is for another account. */
  readonly expired: string;
  readonly otherAccount: string;
}

export type PasskeyAnswerFor = 'login' | 'mfa' | 'register';

export interface PasskeyFixtures {
  /** The id of the passkey registered for the signed-in user (also the second-factor step's user). */
  readonly credentialId: string;
  /**
   * An answer (JSON text) to one of the latest challenges issued for the password-step
   * interaction (`login`), the second-factor one (`mfa`) or the session's registration
   * (`register`), refused for the `variant`-th reason: wrong origin, wrong RP ID, bad signature,
   * another user's handle, an unregistered credential, no user verification (login only: it is
   * optional as a second factor); registration: wrong origin, wrong RP ID.
   * Read when a request is drawn: the challenges are those the run's own options requests got.
   */
  answer(kind: PasskeyAnswerFor, pick: number, variant: number): string;
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

const accountIdOf = async (server: TestAuthServer, username: string): Promise<string> => (await server.app.services.accounts.findByUsername(username))!.id;

/** The real known-device cookie of `jar` and well-formed tokens that must not count (known-device.ts). */
function knownDeviceFixtures(jar: CookieJar, key: string, clock: () => number, otherAccountId: string): KnownDeviceFixtures {
  const real = jar.cookies.get(KNOWN_DEVICE_COOKIE);
  if (!real) throw new Error(`the signed-in browser has no ${KNOWN_DEVICE_COOKIE} cookie`);
  const token = (accountId: string, expiresAt: number) => {
    const id = randomBytes(16).toString('base64url');
    return `${id}.${expiresAt}.${createHmac('sha256', key).update(`${accountId}\n${id}\n${expiresAt}`).digest('base64url')}`;
  };
  return { real, expired: token(otherAccountId, clock() - 1_000), otherAccount: token(otherAccountId, clock() + 3_600_000) };
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** Flips the last byte of a base64url value (a signature that no longer verifies). */
const flipLastByte = (value: unknown): string => {
  const bytes = Buffer.from(String(value), 'base64url');
  bytes.writeUInt8(bytes.at(-1)! ^ 0x55, bytes.length - 1);
  return bytes.toString('base64url');
};

/** The most live challenges a binding keeps (passkeys/challenge-store.ts MAX_LIVE_CHALLENGES). */
const LIVE_CHALLENGES = 5;

interface PasskeyPools {
  readonly fixtures: PasskeyFixtures;
  /** Remembers the challenge of a 200 options answer, for the answers drawn next. */
  observe(request: FuzzRequest, response: FuzzResponse): void;
}

/** A field of a form or JSON body. */
function bodyField(request: FuzzRequest, name: string): unknown {
  const body = typeof request.body === 'string' ? request.body : (request.body?.toString('utf8') ?? '');
  try {
    const json = JSON.parse(body) as Record<string, unknown> | null;
    return json && typeof json === 'object' ? json[name] : undefined;
  } catch {
    return new URLSearchParams(body).get(name) ?? undefined;
  }
}

/** The challenge a passkey answer (the `credential` field) names in its clientDataJSON, if it is readable. */
function answeredChallenge(request: FuzzRequest): string | undefined {
  try {
    const field = bodyField(request, 'credential');
    const credential = (typeof field === 'string' ? JSON.parse(field) : field) as { response?: { clientDataJSON?: unknown } };
    const clientData = JSON.parse(Buffer.from(String(credential.response?.clientDataJSON), 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof clientData.challenge === 'string' ? clientData.challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Registers a passkey for the signed-in browser's user, asks for options (as many live
 * challenges as a binding keeps) for each interaction and for registration, and builds refused
 * answers to the latest challenges on demand.
 */
async function passkeyPools(
  server: TestAuthServer,
  sessionJar: CookieJar,
  steps: { loginStep: { jar: CookieJar; uid: string }; mfaStep: { jar: CookieJar; uid: string } },
): Promise<PasskeyPools> {
  const { issuer } = server;
  const post = async (jar: CookieJar, path: string, body: unknown, expected: number) => {
    const res = await request(jar, `${issuer}${path}`, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body) });
    if (res.status !== expected) throw new Error(`${path} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res.json<Record<string, unknown>>();
  };
  const soft = new SoftAuthenticator(issuer);
  const registered = await post(sessionJar, '/authenticator/passkeys', { name: 'Fuzz key', credential: JSON.stringify(soft.register((await post(sessionJar, '/authenticator/passkeys/options', {}, 200)) as never)) }, 201);
  const rpId = new URL(issuer).hostname;
  // A credential the server never registered (with its own user handle), to answer with.
  const stranger = new SoftAuthenticator(issuer);
  stranger.register({ challenge: 'AAAA', rp: { id: rpId }, user: { id: 'c3RyYW5nZXI' } });
  const throwaway = new SoftAuthenticator(issuer);
  const evil = 'http://evil.example';

  const pools: Record<PasskeyAnswerFor, string[]> = { login: [], mfa: [], register: [] };
  const remember = (kind: PasskeyAnswerFor, challenge: unknown) => {
    if (typeof challenge !== 'string') return;
    pools[kind].push(challenge);
    if (pools[kind].length > LIVE_CHALLENGES) pools[kind].shift();
  };
  for (let i = 0; i < LIVE_CHALLENGES; i++) {
    remember('login', (await post(steps.loginStep.jar, '/login/passkey/options', { uid: steps.loginStep.uid }, 200)).challenge);
    remember('mfa', (await post(steps.mfaStep.jar, '/mfa/passkey/options', { uid: steps.mfaStep.uid }, 200)).challenge);
    remember('register', (await post(sessionJar, '/authenticator/passkeys/options', {}, 200)).challenge);
  }
  const options = (challenge: string) => ({ challenge, rpId, allowCredentials: [{ id: soft.credentials[0]!.id }] });

  const assertion = (challenge: string, variant: number, withoutUserVerification: boolean): string => {
    const valid = soft.authenticate(options(challenge)) as { response: Record<string, unknown> } & Record<string, unknown>;
    const edited = (edit: (response: Record<string, unknown>) => void) => {
      const copy = structuredClone(valid);
      edit(copy.response);
      return JSON.stringify(copy);
    };
    const variants = [
      () => JSON.stringify(soft.authenticate(options(challenge), { origin: evil })),
      () => JSON.stringify(soft.authenticate(options(challenge), { rpId: 'evil.example' })),
      () => edited((r) => (r.signature = flipLastByte(r.signature))),
      // Its signature is broken too: without the user handle (a mutation) it must still fail.
      () =>
        edited((r) => {
          r.userHandle = 'c3RyYW5nZXI';
          r.signature = flipLastByte(r.signature);
        }),
      () => JSON.stringify(stranger.authenticate({ challenge, rpId }, { credential: stranger.credentials[0]! })),
      ...(withoutUserVerification ? [() => JSON.stringify(soft.authenticate(options(challenge), { userVerified: false }))] : []),
    ];
    return variants[variant % variants.length]!();
  };

  const fixtures: PasskeyFixtures = {
    credentialId: String(registered.id),
    answer(kind, pick, variant) {
      const pool = pools[kind];
      const challenge = pool[pick % pool.length] ?? 'AAAA';
      if (kind === 'register') {
        const regOptions = { challenge, rp: { id: rpId }, user: { id: 'ZnV6eg' } };
        return JSON.stringify(variant % 2 === 0 ? throwaway.register(regOptions, { origin: evil }) : throwaway.register(regOptions, { rpId: 'evil.example' }));
      }
      return assertion(challenge, variant, kind === 'login');
    },
  };
  return {
    fixtures,
    observe(req, res) {
      const path = pathOf(req);
      // A challenge the server took is used up: answer the live ones instead.
      if (CHALLENGE_TAKERS.has(path) && (res.status < 400 || mayTakeChallenge(path, res.status, errorCode(res)))) {
        const taken = answeredChallenge(req);
        for (const pool of Object.values(pools)) if (taken !== undefined && pool.includes(taken)) pool.splice(pool.indexOf(taken), 1);
      }
      if (res.status !== 200 || req.method.toUpperCase() !== 'POST') return;
      if (path !== '/login/passkey/options' && path !== '/mfa/passkey/options' && path !== '/authenticator/passkeys/options') return;
      let challenge: unknown;
      try {
        challenge = (JSON.parse(res.text) as { challenge?: unknown }).challenge;
      } catch {
        return;
      }
      if (path === '/authenticator/passkeys/options') return remember('register', challenge);
      const uid = bodyField(req, 'uid');
      if (uid === steps.loginStep.uid) remember('login', challenge);
      else if (uid === steps.mfaStep.uid) remember('mfa', challenge);
    },
  };
}

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
  const device = knownDeviceFixtures(enrolled.jar, key, clock, await accountIdOf(server, tokenUser.username));
  const passkeys = await passkeyPools(server, enrolled.jar, { loginStep: { jar: loginJar, uid: uidOf(loginPage.text) }, mfaStep: mfa });
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
    device,
    passkey: passkeys.fixtures,
  };

  await installWriteCounters(db);
  const offsets = new Map<string, number>();
  const resaves: { n: number; last?: string } = { n: 0 };
  const counters = async () => {
    // The audit trail is written just after the answer (audit/audit-sink.ts): wait for it, so a
    // request's rows are counted against that request.
    await server.app.flushAudit();
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
      passkeys.observe(request, response);
      const now = await counters();
      const changed = [...now].filter(([table, n]) => n !== last.get(table)).map(([table]) => table);
      const code = errorCode(response);
      const path = pathOf(request);
      const problems: string[] = [];
      const body = typeof request.body === 'string' ? request.body : (request.body?.toString('latin1') ?? '');
      // The refresh token of the fixtures is used up by the run's first successful refresh with it
      // (rotation): from then on, sending it again is a replay like the rotated one's.
      if (response.status === 200 && path === '/oauth2/v1/token' && body.includes(fixtures.refreshToken) && !replays.includes(fixtures.refreshToken)) replays.push(fixtures.refreshToken);
      // None of the fuzz's passkey answers is a valid passwordless assertion: accepting one is a forgery.
      if (path === '/login/passkey' && request.method.toUpperCase() === 'POST' && response.status < 400) problems.push(`a passkey answer was accepted (${response.status}): the fuzz sends none that is valid`);
      // A counted failure is counted every time (the regulator records it on each of its keys).
      const countedStatus = path === '/activate' ? 400 : 401;
      if (response.status === countedStatus && code !== undefined && Object.hasOwn(COUNTED_FAILURES, path) && COUNTED_FAILURES[path]!.has(code) && !changed.includes('regulation_failures')) {
        problems.push(`the sign-in failure (${countedStatus} ${code}) was not recorded in regulation_failures`);
      }
      if (changed.length === 0) return problems;
      // The stored audit trail records refusals as much as successes (exception 4).
      const allowed = new Set<string>(['audit_events']);
      // 429 refusals are never counted: the regulator records nothing while a key waits or is locked.
      const counted = response.status === countedStatus && code !== undefined && Object.hasOwn(COUNTED_FAILURES, path) && COUNTED_FAILURES[path]!.has(code);
      if (changed.includes('regulation_failures')) {
        if (counted) allowed.add('regulation_failures');
        else problems.push(`regulation_failures was written by a request that is not a counted sign-in failure (${response.status} ${code ?? ''})`);
      }
      if (changed.includes('passkey_challenges') && response.status >= 400 && mayTakeChallenge(path, response.status, code)) allowed.add('passkey_challenges');
      const replay = response.status === 400 && code === 'invalid_grant' && path === '/oauth2/v1/token' && replays.some((r) => body.includes(r));
      if (replay) for (const table of ['oidc_payloads', 'token_revocations']) allowed.add(table);
      if (offersCodeFormAgain(path, response)) allowed.add('oidc_payloads');
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
