/**
 * Benchmark (not a test): login password-step and token-endpoint throughput through the nginx
 * load balancer with two authorization-server instances, then with one (the other stopped with
 * SIGTERM), in one run, on the production stack of the test suite (built, NODE_ENV=production,
 * PostgreSQL, TLS). Loopback only, bounded loops. Prints both figures and the ratio.
 *
 *   npx -y pnpm@10.34.9 bench:lb            (from the repository root)
 */
import { createHash, randomBytes } from 'node:crypto';
import { startProductionStack, type ProductionStack } from '../support/production-stack.ts';
import { buildForProduction } from '../support/processes.ts';

// This process's own client accepts the certificate the stack generated a moment ago.
process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';

const LOGINS = Number(process.env.BENCH_LOGINS ?? 48);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

async function pool<T>(count: number, concurrency: number, job: (i: number) => Promise<T>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return (performance.now() - started) / 1000;
}

function cookieJar() {
  const cookies = new Map<string, string>();
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    store(response: Response) {
      for (const c of response.headers.getSetCookie()) {
        const pair = c.split(';')[0]!;
        cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
    },
  };
}

/** Prepares `count` login pages (interactions), then measures only the POST /login password steps. */
async function passwordSteps(stack: ProductionStack, users: { username: string; password: string }[]): Promise<number> {
  const prepared = await Promise.all(
    users.map(async (user) => {
      const jar = cookieJar();
      const url = new URL('/oauth2/v1/authorize', stack.authUrl);
      const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
      url.search = new URLSearchParams({ response_type: 'code', client_id: 'app-one', redirect_uri: `${stack.appUrl}/callback`, scope: 'openid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' }).toString();
      const page = await fetch(url, { redirect: 'manual' });
      jar.store(page);
      const uid = /name="uid" value="([^"]+)"/.exec(await page.text())![1]!;
      return { user, jar, uid };
    }),
  );
  const seconds = await pool(prepared.length, CONCURRENCY, async (i) => {
    const { user, jar, uid } = prepared[i]!;
    const r = await fetch(`${stack.authUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', cookie: jar.header() },
      body: JSON.stringify({ uid, username: user.username, password: user.password }),
    });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`password step answered ${r.status}`);
  });
  return prepared.length / seconds;
}

async function tokenGrants(stack: ProductionStack): Promise<number> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read', client_id: 'api', client_secret: stack.apiClientSecret }).toString();
  const seconds = await pool(TOKENS, CONCURRENCY, async () => {
    const r = await fetch(`${stack.authUrl}/oauth2/v1/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`token endpoint answered ${r.status}`);
  });
  return TOKENS / seconds;
}

function users(stack: ProductionStack, count: number, label: string) {
  return Array.from({ length: count }, (_, i) => {
    const user = { username: `${label}-${i}-${randomBytes(2).toString('hex')}`, password: `pw-${randomBytes(9).toString('base64url')}` };
    const added = stack.authctl(['user', 'add', user.username, '--email', `${user.username}@example.com`, '--name', user.username, '--password-stdin'], `${user.password}\n`);
    if (added.status !== 0) throw new Error(added.stderr);
    return user;
  });
}

buildForProduction();
const stack = await startProductionStack('bench-lb');
try {
  // Each login uses its own user (the lockout and TOTP rules are per account).
  const twoUsers = users(stack, LOGINS, 'two');
  const oneUsers = users(stack, LOGINS, 'one');
  await tokenGrants(stack); // warm-up: JIT, connection pools, keys loaded
  const two = { login: await passwordSteps(stack, twoUsers), token: await tokenGrants(stack) };

  stack.instances['auth-2'].child.kill('SIGTERM');
  await stack.instances['auth-2'].exited();
  await tokenGrants(stack); // nginx notices the stopped instance
  const one = { login: await passwordSteps(stack, oneUsers), token: await tokenGrants(stack) };

  const row = (name: string, a: number, b: number) => `${name.padEnd(26)} ${a.toFixed(1).padStart(10)} ${b.toFixed(1).padStart(10)} ${(a / b).toFixed(2).padStart(8)}x`;
  console.log(`through nginx (TLS), concurrency ${CONCURRENCY}, ${LOGINS} password steps and ${TOKENS} token grants per run, on ${(await import('node:os')).cpus().length} cores`);
  console.log(`${'requests per second'.padEnd(26)} ${'2 instances'.padStart(10)} ${'1 instance'.padStart(10)} ${'ratio'.padStart(9)}`);
  console.log(row('login password step', two.login, one.login));
  console.log(row('token endpoint (cc grant)', two.token, one.token));
} finally {
  await stack.stop();
}
