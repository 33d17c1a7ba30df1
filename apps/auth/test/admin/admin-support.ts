/**
 * Shared setup of the admin API tests: a machine client allowed every admin scope, tokens from
 * the real token endpoint (client_credentials, or a user's code flow) and a small HTTP helper
 * that returns status, headers and the parsed body.
 */
import { exportJWK, generateKeyPair } from 'jose';
import { ADMIN_SCOPES } from '../../src/policy/admin-scopes.ts';
import { authorizeUrl, basic, codeFrom, CookieJar, exchange, signIn, type TestAuthServer, type TestUser } from '../support/flow.ts';

export const ADMIN_CLIENT = { clientId: 'admin-machine', clientSecret: 'admin-machine-secret-0123456789' };

/** Registers ADMIN_CLIENT (client_credentials) with every admin scope allowed. */
export async function addAdminClient(server: TestAuthServer): Promise<void> {
  await server.app.services.clients.create({
    clientId: ADMIN_CLIENT.clientId,
    name: 'Admin machine',
    redirectUris: [],
    grantTypes: ['client_credentials'],
    clientSecret: ADMIN_CLIENT.clientSecret,
  });
  await server.app.services.scopePolicies.setClientScopes(ADMIN_CLIENT.clientId, [...ADMIN_SCOPES]);
}

export async function clientCredentials(server: TestAuthServer, scope: string, client = ADMIN_CLIENT, extra: Record<string, string> = {}) {
  const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic(client.clientId, client.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, ...extra }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** An access token of ADMIN_CLIENT for `scope`. */
export async function machineToken(server: TestAuthServer, scope: string): Promise<string> {
  const { status, body } = await clientCredentials(server, scope);
  if (status !== 200) throw new Error(`token answered ${status}: ${JSON.stringify(body)}`);
  return String(body.access_token);
}

/** `user` signs in to `client` asking `scope`; the token response. */
export async function userTokens(server: TestAuthServer, user: TestUser, scope: string, client: { clientId: string; clientSecret: string; redirectUri: string }, atMs = Date.now()) {
  const jar = new CookieJar();
  const url = authorizeUrl(server, { scope, clientId: client.clientId, redirectUri: client.redirectUri });
  const done = await signIn(server, jar, user, url, atMs);
  if (done.status !== 302) throw new Error(`sign-in answered ${done.status}`);
  const tokens = await exchange(server, codeFrom(done.location), {}, client);
  if (tokens.status !== 200) throw new Error(`token answered ${tokens.status}: ${JSON.stringify(tokens.body)}`);
  return { jar, body: tokens.body };
}

export interface AdminAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** One admin API request; `token` null sends no Authorization. */
export async function call(
  server: TestAuthServer,
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; rawBody?: string; contentType?: string } = {},
): Promise<AdminAnswer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined || options.rawBody !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    body = options.rawBody ?? JSON.stringify(options.body);
  }
  const response = await fetch(`${server.issuer}/admin/v1${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Asserts nothing here: the expected problem document of `status`/`code` (for toMatchObject). */
export function problemOf(status: number, code: string, instancePath: string): Record<string, unknown> {
  return { type: `urn:gatehouse:admin:problem:${code}`, status, code, instance: `/admin/v1${instancePath}` };
}


/** Gives the account every kind of second factor besides its TOTP: a device, a passkey, recovery codes. */
export async function enrolSecondFactors(server: TestAuthServer, accountId: string): Promise<void> {
  const { services } = server.app;
  const { publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(publicKey);
  await services.devices.create({ accountId, name: 'Phone', publicKey: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! } });
  await services.passkeys.add({
    id: `cred-${accountId.slice(0, 8)}`,
    accountId,
    name: 'Key',
    publicKey: new Uint8Array([1, 2, 3]),
    counter: 0,
    transports: ['usb'],
    deviceType: 'singleDevice',
    backedUp: false,
  });
  await services.recoveryCodes.replace(accountId);
}
