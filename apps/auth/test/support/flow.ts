import { createLogger } from '../../src/logging/logger.ts';
import { randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { CookieJar, form, pkcePair, request, startTestAuthServer, type TestAuthServer, type TestUser } from './index.ts';

export { CookieJar, form, request, pkcePair, decodeJwt, decodeProtectedHeader };
export type { TestAuthServer, TestUser };

export const APP_TWO = { clientId: 'app-two-test', clientSecret: 'app-two-test-secret-0123456789', redirectUri: 'http://127.0.0.1:7/callback' };

export async function startServer(options: Parameters<typeof startTestAuthServer>[0] = {}): Promise<TestAuthServer> {
  const server = await startTestAuthServer(options);
  await server.app.services.clients.create({
    clientId: APP_TWO.clientId,
    name: 'App Two',
    redirectUris: [APP_TWO.redirectUri],
    postLogoutRedirectUris: ['http://127.0.0.1:7/signed-out'],
    clientSecret: APP_TWO.clientSecret,
    grantTypes: ['authorization_code', 'refresh_token'],
    firstParty: true,
  });
  return server;
}

export interface AuthorizeParams {
  clientId?: string;
  redirectUri?: string;
  scope?: string;
  prompt?: string;
  state?: string;
  /** null leaves the nonce out (required for a request without openid). */
  nonce?: string | null;
  challenge?: string;
}

export function authorizeUrl(server: TestAuthServer, params: AuthorizeParams = {}): string {
  const url = new URL('/oauth2/v1/authorize', server.issuer);
  const query: Record<string, string> = {
    response_type: 'code',
    client_id: params.clientId ?? server.testClient.clientId,
    redirect_uri: params.redirectUri ?? server.testClient.redirectUri,
    scope: params.scope ?? 'openid profile email movies:read',
    state: params.state ?? randomBytes(6).toString('hex'),
  };
  if (params.nonce !== null) query.nonce = params.nonce ?? randomBytes(6).toString('hex');
  if (params.prompt) query.prompt = params.prompt;
  if (params.challenge) {
    query.code_challenge = params.challenge;
    query.code_challenge_method = 'S256';
  }
  url.search = new URLSearchParams(query).toString();
  return url.toString();
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

export function uidOf(html: string): string {
  const match = /name="uid" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no uid in page');
  return match[1]!;
}

/** Password + TOTP for `user` in `jar`, returning the final /mfa/verify response. */
export async function signIn(server: TestAuthServer, jar: CookieJar, user: TestUser, url: string, atMs = Date.now()) {
  const page = await request(jar, url);
  if (page.status !== 200) throw new Error(`authorize answered ${page.status}`);
  const uid = uidOf(page.text);
  const mfa = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
  if (mfa.status !== 200) throw new Error(`login answered ${mfa.status}`);
  const code = await server.app.services.totp.generate(user.totpSecret, atMs);
  return request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...form({ uid, code }) });
}

export async function exchange(server: TestAuthServer, code: string, extra: Record<string, string> = {}, client = server.testClient) {
  const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, ...extra }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

export async function refresh(server: TestAuthServer, refreshToken: string) {
  const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(server.testClient.clientId, server.testClient.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function introspect(server: TestAuthServer, token: string) {
  const c = server.introspectionClient;
  const response = await fetch(`${server.issuer}/oauth2/v1/introspect`, {
    method: 'POST',
    headers: { authorization: basic(c.clientId, c.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export function codeFrom(location: string | null): string {
  const code = location ? new URL(location).searchParams.get('code') : null;
  if (!code) throw new Error(`no code in ${location}`);
  return code;
}

/** RP-initiated logout of the SSO session in `jar`, confirmed on the logout page. */
export async function logout(server: TestAuthServer, jar: CookieJar, idToken: string): Promise<void> {
  const url = new URL('/oauth2/v1/logout', server.issuer);
  url.search = new URLSearchParams({ id_token_hint: idToken }).toString();
  const page = await request(jar, url.toString());
  if (page.status !== 200) throw new Error(`logout answered ${page.status}`);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!xsrf) throw new Error('no xsrf on the logout page');
  const confirm = await request(jar, `${server.issuer}/oauth2/v1/logout/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
  });
  if (confirm.status !== 303 && confirm.status !== 200) throw new Error(`logout confirm answered ${confirm.status}`);
}

/** POST /oauth2/v1/revoke as `client` (Basic, or client_id only for a public client). */
export async function revokeAs(server: TestAuthServer, token: string, client: { clientId: string; clientSecret?: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const params = new URLSearchParams({ token });
  if (client.clientSecret) headers.authorization = basic(client.clientId, client.clientSecret);
  else params.set('client_id', client.clientId);
  const response = await fetch(`${server.issuer}/oauth2/v1/revoke`, { method: 'POST', headers, body: params });
  return { status: response.status, text: await response.text() };
}

/**
 * The logger the server module makes (createLogger, through its direct writer), at debug, with every
 * line it writes parsed into `lines`.
 */
export function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (chunk: string) => void lines.push(...chunk.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)) } });
  return { logger, lines };
}
