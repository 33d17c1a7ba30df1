/**
 * The production path, proven. Built output, NODE_ENV=production, PostgreSQL, two auth
 * and two API instances behind nginx terminating TLS (support/production-stack.ts), one relying
 * party. The test's own HTTP client accepts the self-signed certificate the suite generated;
 * the apps trust it through NODE_EXTRA_CA_CERTS, the browser through ignoreHTTPSErrors.
 */
import { randomBytes, createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { threadPoolSizeFor } from '@gatehouse/runtime';
import { decodeProtectedHeader } from 'jose';
import type { Browser } from 'playwright-core';
import { startProductionStack, type InstanceName, type ProductionStack } from '../support/production-stack.ts';
import { launchBrowser, screenshot, submitCode, submitPassword } from '../support/browser.ts';
import { nextCode, type E2eUser } from '../support/users.ts';

// Only this test process's own client: the certificate is the one the suite made a minute ago.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';

let stack: ProductionStack;
let browser: Browser;

beforeAll(async () => {
  stack = await startProductionStack('production');
  browser = await launchBrowser();
}, 360_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

function newUser(label: string, withTotp = false): E2eUser {
  const username = `${label}-${randomBytes(3).toString('hex')}`;
  const user: E2eUser = { username, password: `pw-${randomBytes(9).toString('base64url')}`, name: `Prod ${label}`, email: `${username}@example.com`, groups: ['prod'] };
  const added = stack.authctl(['user', 'add', username, '--email', user.email, '--name', user.name, '--groups', 'prod', '--password-stdin'], `${user.password}\n`);
  if (added.status !== 0) throw new Error(added.stderr);
  if (withTotp) {
    const enrolled = stack.authctl(['user', 'totp', username, '--json']);
    user.totpSecret = new URL((JSON.parse(enrolled.stdout) as { otpauth_uri: string }).otpauth_uri).searchParams.get('secret')!;
  }
  return user;
}

/** A minimal cookie-keeping HTTP client (one browser session), recording the X-Request-Id of each answer. */
class Session {
  readonly cookies = new Map<string, string>();
  readonly requestIds: string[] = [];
  async send(url: string, init: { method?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      headers.accept = 'application/json';
      body = JSON.stringify(init.json);
    }
    const response = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const id = response.headers.get('x-request-id');
    if (id) this.requestIds.push(id);
    return { status: response.status, location: response.headers.get('location'), text: await response.text(), headers: response.headers };
  }
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

function authorizeUrl(challenge: string): string {
  const url = new URL('/oauth2/v1/authorize', stack.authUrl);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: 'app-one', redirect_uri: `${stack.appUrl}/callback`, scope: 'openid profile email movies:read',
    state: randomBytes(6).toString('hex'), code_challenge: challenge, code_challenge_method: 'S256'
  }).toString();
  return url.toString();
}

describe('issue 8: several instances on PostgreSQL behind a TLS-terminating nginx', () => {
  it('the seed flow works through the load balancer over https in Chromium, its steps served by both instances', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const ids: string[] = [];
    page.on('response', (response) => {
      const id = response.headers()['x-request-id'];
      if (id && response.url().startsWith(stack.authUrl)) ids.push(id);
    });
    const user = newUser('browser');
    await page.goto(`${stack.appUrl}/`);
    expect(new URL(page.url()).origin).toBe(stack.authUrl);
    await submitPassword(page, user);
    await submitCode(page, user);
    await page.waitForURL(`${stack.appUrl}/`);
    expect(await page.locator('main').textContent()).toContain(user.email);
    await screenshot(page, 'prod-1-landed-through-nginx');

    const served = new Set((await Promise.all(ids.map((id) => stack.servedBy(id)))).flat().filter((n) => n.startsWith('auth-')));
    expect([...served].sort()).toEqual(['auth-1', 'auth-2']);
    const cookies = await context.cookies(stack.authUrl);
    const session = cookies.find((c) => c.name === 'gh_auth_session');
    expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
    const appCookies = await context.cookies(stack.appUrl);
    expect(appCookies.length).toBeGreaterThan(0);
    expect(appCookies.every((c) => c.secure)).toBe(true);

    const discovery = (await (await fetch(`${stack.authUrl}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    expect(discovery.issuer).toBe(stack.authUrl);
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint', 'end_session_endpoint']) {
      expect(discovery[key]!.startsWith(`${stack.authUrl}/oauth2/v1/`)).toBe(true);
    }
    await context.close();
  });

  it('kill -9 of an auth instance between /login and /mfa/verify: every login still completes on the other one', async () => {
    const users = Array.from({ length: 6 }, (_, i) => newUser(`batch${i}`, true));
    const logins = await Promise.all(
      users.map(async (user) => {
        const session = new Session();
        const { verifier, challenge } = pkce();
        const page = await session.send(authorizeUrl(challenge));
        expect(page.status).toBe(200);
        const uid = /name="uid" value="([^"]+)"/.exec(page.text)![1]!;
        const password = await session.send(`${stack.authUrl}/login`, { json: { uid, username: user.username, password: user.password } });
        expect(password.status).toBe(200);
        return { user, session, uid, verifier };
      }),
    );
    const victim = stack.instances['auth-1'];
    victim.child.kill('SIGKILL');
    expect(await victim.exited()).toBeNull();

    for (const login of logins) {
      const verified = await login.session.send(`${stack.authUrl}/mfa/verify`, { json: { uid: login.uid, code: await nextCode(login.user) } });
      expect(verified.status).toBe(302);
      // The resume step (oidc-provider) then redirects to the client with the code.
      const resumed = verified.location!.startsWith('/') ? await login.session.send(`${stack.authUrl}${verified.location}`) : verified;
      expect(resumed.status).toBe(302);
      const callback = new URL(resumed.location!);
      expect(`${callback.origin}${callback.pathname}`).toBe(`${stack.appUrl}/callback`);
      const code = callback.searchParams.get('code')!;
      const token = await fetch(`${stack.authUrl}/oauth2/v1/token`, {
        method: 'POST',
        // app-one is registered for client_secret_basic, the only method it may use.
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth('app-one', clientSecret()) },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: `${stack.appUrl}/callback`, code_verifier: login.verifier }),
      });
      const tokens = (await token.json()) as Record<string, string>;
      expect(token.status).toBe(200);
      const refreshed = await fetch(`${stack.authUrl}/oauth2/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth('app-one', clientSecret()) },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }),
      });
      expect(refreshed.status).toBe(200);
    }
    await victim.restart();
    await untilBothServe();
  });

  it('regulation is shared: the 30 s wait after 5 failures spread over both instances is enforced by both (429, Retry-After), even for the right password', async () => {
    const user = newUser('regulated', true);
    const attempt = async (password: string) => {
      const session = new Session();
      const page = await session.send(authorizeUrl(pkce().challenge));
      const uid = /name="uid" value="([^"]+)"/.exec(page.text)![1]!;
      const answer = await session.send(`${stack.authUrl}/login`, { json: { uid, username: user.username, password } });
      return {
        status: answer.status,
        retryAfter: answer.headers.get('retry-after'),
        error: answer.status === 401 || answer.status === 429 ? (JSON.parse(answer.text) as { error?: string }).error : undefined,
        instance: (await stack.servedBy(session.requestIds.at(-1)!))[0],
        receivedAt: Date.now(),
      };
    };
    /** Round robin also serves other traffic; one extra request through the LB shifts which instance is next. */
    const shift = () => fetch(`${stack.authUrl}/healthz`);
    // Defaults: 5 failures of an account are free, each answered 401 without any wait.
    const failures: Awaited<ReturnType<typeof attempt>>[] = [];
    let fifthSentAt = 0;
    for (let i = 0; i < 5; i += 1) {
      fifthSentAt = Date.now();
      failures.push(await attempt('not-the-password'));
      await shift();
    }
    expect(failures.map((f) => [f.status, f.error, f.retryAfter])).toEqual(Array.from({ length: 5 }, () => [401, 'invalid_credentials', null]));
    expect(new Set(failures.map((f) => f.instance)).size).toBe(2);
    // The 5th failure asks 30 s of the next attempt, whichever instance counted it: the right
    // password is refused on both (bounded: try until both answered), and Retry-After counts down
    // from the one shared failure time, never more than 30 s and never less than what is left of it.
    const refusals: Awaited<ReturnType<typeof attempt>>[] = [];
    for (let i = 0; i < 6 && new Set(refusals.map((r) => r.instance)).size < 2; i += 1) {
      refusals.push(await attempt(user.password));
      await shift();
    }
    expect(new Set(refusals.map((r) => r.instance))).toEqual(new Set(['auth-1', 'auth-2']));
    for (const refusal of refusals) {
      expect([refusal.status, refusal.error]).toEqual([429, 'too_many_attempts']);
      const seconds = Number(refusal.retryAfter);
      expect(refusal.retryAfter).toBe(String(seconds));
      expect(seconds).toBeLessThanOrEqual(30);
      expect(seconds).toBeGreaterThanOrEqual(Math.ceil((fifthSentAt + 30_000 - refusal.receivedAt) / 1000));
    }
  });

  it('manual key rotation while both run: both sign with the new key within 6 s, old tokens keep working at both APIs', async () => {
    const before = await clientCredentialsToken();
    const oldKid = decodeProtectedHeader(before).kid;
    const rotated = JSON.parse(stack.authctl(['keys', 'rotate', '--json']).stdout) as { kid: string };
    expect(rotated.kid).not.toBe(oldKid);
    const started = Date.now();
    let kids: (string | undefined)[] = [];
    while (Date.now() - started < 6_000) {
      kids = [];
      // Round robin: four tokens in a row come from both instances.
      for (let i = 0; i < 4; i += 1) kids.push(decodeProtectedHeader(await clientCredentialsToken()).kid);
      if (kids.every((k) => k === rotated.kid)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(kids).toEqual([rotated.kid, rotated.kid, rotated.kid, rotated.kid]);
    for (const name of ['api-1', 'api-2'] as const) {
      const direct = await fetch(`http://127.0.0.1:${stack.instances[name].port}/api/movies`, { headers: { authorization: `Bearer ${before}` } });
      expect(direct.status).toBe(200);
    }
  });

  it('client changes by authctl take effect at both auth instances at once, though each keeps the client rows it read (LISTEN/NOTIFY)', async () => {
    const added = JSON.parse(stack.authctl(['client', 'add', 'cache-probe', '--grant', 'client_credentials', '--name', 'Cache probe', '--json']).stdout) as { client_secret: string };
    // Round robin: four requests in a row reach both instances, and each reads and keeps the row.
    const requestIds: string[] = [];
    const fourTimes = async (secret: string) => {
      const answers: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const response = await fetch(`${stack.authUrl}/oauth2/v1/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`cache-probe:${secret}`).toString('base64')}` },
          body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
        });
        const body = (await response.json()) as { error?: string };
        answers.push(`${response.status} ${body.error ?? 'token'}`);
        requestIds.push(response.headers.get('x-request-id') ?? '');
      }
      return answers;
    };
    expect(await fourTimes(added.client_secret)).toEqual(['200 token', '200 token', '200 token', '200 token']);
    const servers = new Set((await Promise.all(requestIds.map((id) => stack.servedBy(id)))).flat());
    expect(servers).toEqual(new Set(['auth-1', 'auth-2']));
    const rotated = JSON.parse(stack.authctl(['client', 'rotate-secret', 'cache-probe', '--grace', '0', '--json']).stdout) as { client_secret: string };
    expect(await fourTimes(added.client_secret)).toEqual(['401 invalid_client', '401 invalid_client', '401 invalid_client', '401 invalid_client']);
    expect(await fourTimes(rotated.client_secret)).toEqual(['200 token', '200 token', '200 token', '200 token']);
    stack.authctl(['client', 'remove', 'cache-probe']);
    expect(await fourTimes(rotated.client_secret)).toEqual(['401 invalid_client', '401 invalid_client', '401 invalid_client', '401 invalid_client']);
  });

  it('PostgreSQL connections terminated and refused mid-run: clean 503s, then full recovery, no process exits', async () => {
    const admin = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    const dbName = new URL(stack.databases.auth.url).pathname.slice(1);
    try {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
      const statuses = new Set<number>();
      for (let i = 0; i < 4; i += 1) statuses.add((await new Session().send(authorizeUrl(pkce().challenge))).status);
      expect([...statuses]).toEqual([503]);
    } finally {
      await admin.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await new Session().send(authorizeUrl(pkce().challenge))).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    for (const instance of Object.values(stack.instances)) expect(instance.child.exitCode).toBeNull();
  });

  it('SIGTERM to an API instance during a burst through the load balancer: no request is cut, exit code 0', async () => {
    const token = await clientCredentialsToken();
    const outcomes: number[] = [];
    let sent = 0;
    const victim = stack.instances['api-2'];
    const worker = async () => {
      while (sent < 200) {
        sent += 1;
        if (sent === 80) victim.child.kill('SIGTERM');
        const r = await fetch(`${stack.apiUrl}/api/movies`, { headers: { authorization: `Bearer ${token}` } }).catch(() => undefined);
        outcomes.push(r?.status ?? 0);
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    expect(await victim.exited()).toBe(0);
    expect(outcomes.filter((s) => s !== 200)).toEqual([]);
    expect(outcomes).toHaveLength(200);
  });

  it('rolling restart of an auth instance during a burst of POSTs on kept-alive connections through nginx: 0 errors, exit code 0 (issue 30)', async () => {
    // nginx never retries a POST it has sent, so every one must be answered: the draining
    // instance answers what arrives on its kept-alive connections with Connection: close and,
    // with TRUST_PROXY, leaves idle ones for nginx to close first (packages/runtime run-server.ts).
    // What no app can answer is a connection nginx opens in the instant the listener closes: the
    // kernel resets it (deploy/README.md, "Shutdown"). nginx opens one only while its pool of
    // upstream connections grows, so the pool is made whole first: both instances paused while
    // 24 POSTs arrive, nginx holds 12 connections to each, as many as the burst's 12 workers
    // can ever use at once.
    const victim = stack.instances['auth-1'];
    const tokenRequest = () =>
      fetch(`${stack.authUrl}/oauth2/v1/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth('api', stack.apiClientSecret) },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
      });
    const auths = [stack.instances['auth-1'], stack.instances['auth-2']];
    for (const instance of auths) instance.child.kill('SIGSTOP');
    let warming: Promise<Response[]>;
    try {
      warming = Promise.all(Array.from({ length: 24 }, tokenRequest));
      for (let i = 0; i < 200 && auths.some((instance) => establishedTo(instance.port) < 12); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      for (const instance of auths) instance.child.kill('SIGCONT');
    }
    expect(auths.map((instance) => ({ name: instance.name, pooled: establishedTo(instance.port) >= 12 }))).toEqual(auths.map(({ name }) => ({ name, pooled: true })));
    expect((await warming).map((r) => r.status)).toEqual(Array.from({ length: 24 }, () => 200));

    const statuses: number[] = [];
    let sent = 0;
    const worker = async () => {
      while (sent < 400) {
        sent += 1;
        if (sent === 150) victim.child.kill('SIGTERM');
        const r = await tokenRequest().catch(() => undefined);
        await r?.arrayBuffer();
        statuses.push(r?.status ?? 0);
      }
    };
    let serving: InstanceName[] = [];
    try {
      await Promise.all(Array.from({ length: 12 }, worker));
      expect(await victim.exited()).toBe(0);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expect(statuses).toHaveLength(400);
    } finally {
      // The restart of the rolling restart, even after a failure, so later tests find both
      // instances serving.
      if (victim.child.exitCode === null && victim.child.signalCode === null) victim.child.kill('SIGKILL');
      await victim.exited();
      await victim.restart();
      serving = await bothServe();
    }
    expect(serving).toEqual(['auth-1', 'auth-2']);
  });

  it("the auth instances sign on libuv's pool sized to the machine: one thread per core, at least 2 (packages/runtime thread-pool.ts)", async () => {
    // Four tokens in a row through the round robin: both instances have signed (their pools started).
    for (let i = 0; i < 4; i += 1) await clientCredentialsToken();
    const expected = threadPoolSizeFor(availableParallelism());
    for (const name of ['auth-1', 'auth-2'] as const) expect({ name, threads: poolThreads(stack.instances[name].child.pid!) }).toEqual({ name, threads: expected });
  });
});

const clientSecret = (): string => stack.appClientSecret;

/**
 * After an instance failed, nginx rests it for fail_timeout (5 s): waits (bounded) until both auth
 * instances serve again and answers the ones seen serving. Never throws, so a test can wait in a
 * `finally` without hiding its own failure.
 */
async function bothServe(): Promise<InstanceName[]> {
  const seen = new Set<InstanceName>();
  for (let i = 0; i < 100 && seen.size < 2; i += 1) {
    const session = new Session();
    await session.send(`${stack.authUrl}/.well-known/openid-configuration`).catch(() => undefined);
    const requestId = session.requestIds[0];
    if (requestId) for (const name of await stack.servedBy(requestId)) seen.add(name);
    if (seen.size < 2) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return [...seen].sort();
}

async function untilBothServe(): Promise<void> {
  expect(await bothServe()).toEqual(['auth-1', 'auth-2']);
}

/** RFC 6749 §2.3.1 client_secret_basic credentials (both parts form-encoded). */
function basicAuth(clientId: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}

async function clientCredentialsToken(): Promise<string> {
  const response = await fetch(`${stack.authUrl}/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth('api', stack.apiClientSecret) },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
  });
  const body = (await response.json()) as { access_token: string };
  if (response.status !== 200) throw new Error(`client_credentials answered ${response.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Established TCP connections whose server end is 127.0.0.1:<port> (Linux /proc/net/tcp; state 01). */
function establishedTo(port: number): number {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').filter((line) => {
    const fields = line.trim().split(/\s+/);
    return fields[1] === local && fields[3] === '01';
  }).length;
}

/** Threads of libuv's pool in a process (Linux /proc: they are named libuv-worker). */
function poolThreads(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).filter((tid) => readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').startsWith('libuv-worker')).length;
}
