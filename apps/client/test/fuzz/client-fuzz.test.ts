/**
 * Every route of the relying party, driven with random and hostile requests over real
 * HTTP (createApp on SQLite, a real test authorization server, the stub API). The fuzz holds a
 * signed-in session (its cookies and CSRF token are mixed into the requests, tampered or not),
 * pending logins (their `state` values and the login cookie of the browser that started them), and the cookies of a session that was signed
 * out (stale). Invariants (@gatehouse/fuzz): no 5xx, no stack trace or internal path, every 4xx the
 * HTML error page or Node's parser rejection, nothing logged at error level, no stored session
 * changed by a refused request, and /healthz still answers afterwards. Pending logins whose
 * `state` the fuzz may present are left out of the state digest: a callback consumes its state on
 * first use, even when it then refuses (so that a replay fails; routes/callback.ts).
 * Seed and run counts: FUZZ_SEED / FUZZ_RUNS (see packages/fuzz/README.md).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CookieJar, startTestAuthServer, type TestAuthServer } from '@gatehouse/auth/testing';
import {
  anyShape,
  cookieHeaders,
  fc,
  fuzzRequest,
  fuzzSettings,
  htmlErrorPage,
  parserRejection,
  runFuzz,
  type Cookie,
  type FuzzRequest,
  type FuzzResponse,
  type RouteSpec,
} from '@gatehouse/fuzz';
import { hiddenField, startClient, type ClientHarness } from '../support/client-harness.ts';
import { startStubApi, type StubApi } from '../support/stub-api.ts';

const COMMAND = 'pnpm --filter @gatehouse/client exec vitest run test/fuzz/client-fuzz.test.ts';

let auth: TestAuthServer;
let api: StubApi;
let client: ClientHarness;
/** The signed-in browser; signed in again if a fuzzed request signs it out. */
let jar: CookieJar;
let csrf = '';
let stale: Cookie[] = [];
let pending: { state: string; cookies: Cookie[] }[] = [];

async function signIn(): Promise<void> {
  jar = new CookieJar();
  const callback = await client.login(jar, await auth.createUser());
  if (callback.status !== 302) throw new Error(`login answered ${callback.status}`);
  csrf = hiddenField((await client.get(jar, '/')).text, '_csrf');
}

/** A browser that started `count` logins and finished none (the login cookie is reused, so all are bound to it). */
async function startPendingLogins(count: number): Promise<{ state: string; cookies: Cookie[] }[]> {
  const browser = new CookieJar();
  const started: { state: string; cookies: Cookie[] }[] = [];
  for (let i = 0; i < count; i++) {
    const landing = await client.get(browser, '/');
    const state = new URL(landing.location ?? 'http://x/').searchParams.get('state');
    if (landing.status !== 302 || !state) throw new Error(`landing answered ${landing.status}`);
    started.push({ state, cookies: [...browser.cookies] });
  }
  return started;
}

beforeAll(async () => {
  auth = await startTestAuthServer();
  api = await startStubApi({ issuer: auth.issuer, audience: auth.audience });
  client = await startClient({ auth, apiUrl: api.url });
  api.items.set(1, { id: 1, title: 'Metropolis' });
  // A session that was signed out: its cookies are stale.
  await signIn();
  const signedOut = await client.post(jar, '/logout', { _csrf: csrf });
  if (signedOut.status !== 302) throw new Error(`logout answered ${signedOut.status}`);
  stale = [...jar.cookies];
  await signIn();
  // Twelve pending logins of one browser (whose cookies the fuzz sends) and one of another.
  pending = [...(await startPendingLogins(12)), ...(await startPendingLogins(1))];
}, 60_000);

afterAll(async () => {
  await client?.close();
  await api?.close();
  await auth?.close();
});

const states = () => pending.map((p) => p.state);

/** A digest of the sessions and of the pending logins the fuzz cannot name. */
async function snapshot(): Promise<string> {
  const db = client.database.db;
  const sessions = await db.selectFrom('client_sessions').select(['id', 'data', 'expires_at']).orderBy('id').execute();
  const logins = await db.selectFrom('client_logins').select(['state', 'browser', 'expires_at']).orderBy('state').execute();
  const exempt = new Set(states());
  return createHash('sha256')
    .update(JSON.stringify([sessions, logins.filter((l) => !exempt.has(l.state))]))
    .digest('hex');
}

let logged = 0;
/** Nothing at error level in the log; and the fuzz's own browser signs in again if a request signed it out. */
async function check(_request: FuzzRequest, _response: FuzzResponse): Promise<string[]> {
  const errors = client.logs.slice(logged).filter((line) => Number(line.level) >= 50);
  logged = client.logs.length;
  const sid = jar.cookies.get(client.config.cookies.session);
  if (!sid || !(await client.app.stores.sessions.get(sid))) await signIn();
  return errors.map((line) => `logged at error level: ${JSON.stringify(line).slice(0, 400)}`);
}

function routes(): RouteSpec[] {
  const callbackQuery = ['code', 'state', 'iss', 'error', 'error_description', 'session_state'];
  return [
    { path: '/', query: ['x'] },
    { path: '/callback', query: callbackQuery, queryValues: { state: states(), error: ['access_denied', 'login_required', 'server_error'], iss: [auth.issuer] } },
    { path: '/logout', methods: ['GET', 'POST'] },
    { path: '/signed-out' },
    { path: '/items', methods: ['POST'] },
    { path: '/items/:id/delete', methods: ['POST'], params: { id: ['1', '2', '42', '9007199254740991'] } },
    { path: '/static/client.css', methods: ['GET', 'HEAD'] },
    { path: '/healthz', methods: ['GET', 'HEAD'] },
    { path: '/readyz', methods: ['GET', 'HEAD'] },
  ];
}

describe('the relying party under hostile requests', () => {
  const settings = fuzzSettings(3000);
  it(
    'keeps its invariants on every route, signed in or not, with tampered and stale cookies',
    async () => {
      const cookies = () => [...jar.cookies, ...pending[0]!.cookies];
      const form = fc.record(
        {
          // Read when drawn: the CSRF token changes when the fuzz's browser signs in again.
          _csrf: fc.constantFrom('current', 'current', 'flipped', '').map((which) => (which === 'current' ? csrf : which === 'flipped' ? `${csrf.slice(0, -1)}A` : '')),
          id: fc.oneof(fc.integer({ min: 1, max: 60 }).map(String), fc.constantFrom('0', '-1', '1.5', '9007199254740993', ' 7 ', '')),
          value: fc.oneof(fc.string({ maxLength: 20 }), fc.constant('x'.repeat(300))),
        },
        { requiredKeys: ['_csrf'] },
      );
      const requests = fuzzRequest({
        routes: routes(),
        headers: { accept: ['text/html', 'text/html,application/xhtml+xml,*/*;q=0.8'], extra: cookieHeaders(cookies, () => stale), hostileHost: true },
        bodies: { form },
      });
      const target = {
        url: client.url,
        errorShape: anyShape(htmlErrorPage(/<code id="error-code">[a-z_]+<\/code>/), parserRejection),
        snapshot,
        check,
      };
      await runFuzz('client: every route', target, requests, { runs: 3000, command: COMMAND, settings });
    },
    settings.timeoutMs,
  );
});
