/**
 * The browser side of a Gatehouse sign-in, over HTTP, for the suite: an authorization request
 * (code + PKCE) up to the login interaction, the password step, the TOTP step and the code
 * exchange. Used to prepare password steps (measured on their own) and to obtain one refresh
 * token per user (the start of a refresh chain).
 */
import { createHash, randomBytes } from 'node:crypto';
import { generate } from 'otplib';
import { httpRequest } from './load.ts';
import type { EngineStack, User } from './stack.ts';

class Jar {
  private readonly cookies = new Map<string, string>();
  store(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const i = pair.indexOf('=');
      const value = pair.slice(i + 1);
      if (value) this.cookies.set(pair.slice(0, i), value);
      else this.cookies.delete(pair.slice(0, i));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

async function call(jar: Jar, url: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const response = await fetch(url, { ...init, headers: { accept: 'application/json', cookie: jar.header(), ...init.headers }, redirect: 'manual' });
  jar.store(response);
  return response;
}

export interface PreparedLogin {
  readonly jar: Jar;
  readonly uid: string;
  readonly verifier: string;
}

/** Authorization request → the login interaction (not measured). */
export async function prepareLogin(stack: EngineStack, scope = 'openid movies:read movies:write'): Promise<PreparedLogin> {
  const jar = new Jar();
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL('/oauth2/v1/authorize', stack.auth.url);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: stack.app.clientId,
    redirect_uri: stack.app.redirectUri,
    scope,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  let response = await call(jar, url.toString());
  for (let hops = 0; response.status >= 300 && response.status < 400 && hops < 3; hops++) {
    await response.arrayBuffer();
    response = await call(jar, new URL(response.headers.get('location')!, stack.auth.url).toString());
  }
  const body = (await response.json()) as { interaction?: string };
  if (response.status !== 200 || !body.interaction) throw new Error(`authorize answered ${response.status}: ${JSON.stringify(body)}`);
  return { jar, uid: body.interaction, verifier };
}

/** The password step, as a browser would send it. */
async function passwordStep(stack: EngineStack, prepared: PreparedLogin, user: User): Promise<void> {
  const response = await call(prepared.jar, `${stack.auth.url}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uid: prepared.uid, username: user.username, password: user.password }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`password step answered ${response.status}: ${text}`);
}

/**
 * The same password step as raw bytes for the load generator (load.ts): what part 4 sends, so
 * that the measuring client costs a fraction of what `fetch` costs on the same 2 cores.
 */
export function passwordStepRequest(stack: EngineStack, prepared: PreparedLogin, user: User): Buffer {
  const body = JSON.stringify({ uid: prepared.uid, username: user.username, password: user.password });
  return httpRequest(stack.auth.port, 'POST', '/login', { Accept: 'application/json', Cookie: prepared.jar.header(), 'Content-Type': 'application/json' }, body);
}

/** A full sign-in of `user`; answers the refresh token of the code exchange. */
export async function signIn(stack: EngineStack, user: User): Promise<string> {
  const prepared = await prepareLogin(stack);
  await passwordStep(stack, prepared, user);
  const code = await generate({ secret: user.totpSecret, algorithm: 'sha1', digits: 6, period: 30 });
  const verify = await call(prepared.jar, `${stack.auth.url}/mfa/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  await verify.arrayBuffer();
  const location = verify.headers.get('location');
  const authorizationCode = location ? new URL(location, stack.auth.url).searchParams.get('code') : null;
  if (!authorizationCode) throw new Error(`mfa/verify answered ${verify.status} without a code`);
  const token = await fetch(`${stack.auth.url}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(stack.app.clientId, stack.app.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: authorizationCode, redirect_uri: stack.app.redirectUri, code_verifier: prepared.verifier }),
  });
  const body = (await token.json()) as { refresh_token?: string };
  if (token.status !== 200 || !body.refresh_token) throw new Error(`code exchange answered ${token.status}: ${JSON.stringify(body)}`);
  return body.refresh_token;
}

export const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
