/**
 * Baseline of the token endpoint: oidc-provider with its built-in memory adapter, configured
 * like apps/auth where the token endpoint is concerned: the same key type and algorithm (RSA
 * 2048, RS256), the same client authentication (client_secret_basic), rotating refresh tokens,
 * JWT access tokens (RFC 9068) for the API audience and its scopes, an ID token on refresh when
 * `openid` was granted. Refresh tokens are minted in-process (Grant + RefreshToken), the way an
 * authorization-code exchange would have left them. Reports over IPC: port, client secrets,
 * refresh tokens; stops when the parent disconnects.
 *
 * With a database URL and a floor kind as its third and fourth arguments (`sqlite:<file>` or
 * `postgres://…`; `refresh` or `client`) it is the floor of one grant on that engine instead
 * (floor-adapter.ts): the refresh floor stores only its refresh tokens there, with the least work a
 * durable rotation needs, and keeps both clients in memory; the client floor reads the machine
 * client's row from there on every request and keeps everything else in memory.
 */
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { Provider, type Configuration } from 'oidc-provider';
import { checkedFloor as createCheckedFloor, type CheckedFloor, type CheckedFloorEngine } from './checked-floor.ts';
import { postgresCheckedFloor } from './checked-floor-postgres.ts';
import { sqliteCheckedFloor } from './checked-floor-sqlite.ts';
import { floorAdapter, type FloorEngine, type FloorKind } from './floor-adapter.ts';
import { postgresFloor } from './postgres-floor.ts';
import { sqliteFloor } from './sqlite-floor.ts';

const chains = Number(process.argv[2] ?? 16);
const audience = process.argv[3] ?? 'http://127.0.0.1:9/api';
const databaseUrl = process.argv[4];
const kind = process.argv[5] as FloorKind | 'checked' | undefined;
if (databaseUrl !== undefined && kind !== 'refresh' && kind !== 'client' && kind !== 'checked') throw new Error(`a floor's kind is refresh, checked or client, not ${kind}`);
const sqlitePath = databaseUrl?.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : undefined;
const floor: FloorEngine | undefined =
  databaseUrl === undefined || kind === 'checked' ? undefined : sqlitePath !== undefined ? sqliteFloor(sqlitePath, kind!) : await postgresFloor(databaseUrl, kind!);
const checkedEngine: CheckedFloorEngine | undefined =
  databaseUrl === undefined || kind !== 'checked' ? undefined : sqlitePath !== undefined ? sqliteCheckedFloor(sqlitePath) : await postgresCheckedFloor(databaseUrl);
const checked: CheckedFloor | undefined = checkedEngine && createCheckedFloor(checkedEngine);
const API_SCOPES = 'movies:read movies:write';
const secrets = { app: randomBytes(24).toString('base64url'), api: randomBytes(24).toString('base64url') };
const appClient = { client_id: 'app', client_secret: secrets.app, redirect_uris: ['http://127.0.0.1:9/callback'], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'client_secret_basic' } as const;
const machineClient = { client_id: 'api', client_secret: secrets.api, redirect_uris: [], response_types: [], grant_types: ['client_credentials'], token_endpoint_auth_method: 'client_secret_basic' } as const;
// The client floor reads the machine client from its engine (floor-adapter.ts); the others hold both.
const clientFloor = floor?.kind === 'client' ? floor : undefined;
if (clientFloor) await clientFloor.saveClient(machineClient.client_id, JSON.stringify(machineClient));

const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
const jwk = { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'bench' };

const server = createServer({ keepAliveTimeout: 60_000 });
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const issuer = `http://127.0.0.1:${port}`;

const configuration: Configuration = {
  ...(floor ? { adapter: floorAdapter(floor) } : checked ? { adapter: checked.adapter } : {}),
  jwks: { keys: [jwk] } as Configuration['jwks'],
  clients: clientFloor ? [{ ...appClient }] : [{ ...appClient }, { ...machineClient }],
  findAccount: async (_ctx, sub) => (checked && !checked.accountEnabled(sub) ? undefined : { accountId: sub, claims: async () => ({ sub }) }),
  clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
  routes: { token: '/oauth2/v1/token' },
  rotateRefreshToken: true,
  issueRefreshToken: async () => true,
  features: {
    devInteractions: { enabled: false as never },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => audience,
      useGrantedResource: async () => true,
      getResourceServerInfo: async () => ({ scope: API_SCOPES, audience, accessTokenTTL: 3600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } }),
    },
  },
};
const provider = new Provider(issuer, configuration);
server.on('request', provider.callback());
if (checked) provider.on('grant.success', (ctx) => checked.audit({ occurredAt: Date.now(), event: 'token.issued', clientId: ctx.oidc.client?.clientId ?? null, fields: JSON.stringify({ client_id: ctx.oidc.client?.clientId, grant_type: String(ctx.oidc.params?.grant_type ?? '') }) }));

const client = await provider.Client.find('app');
const refreshTokens: string[] = [];
for (let i = 0; i < chains; i++) {
  const accountId = `user-${i}`;
  const grant = new provider.Grant({ accountId, clientId: 'app' });
  grant.addOIDCScope('openid');
  grant.addResourceScope(audience, API_SCOPES);
  const grantId = await grant.save();
  const session = checkedEngine ? await checkedSession(accountId, grantId) : undefined;
  const token = new provider.RefreshToken({
    accountId,
    client: client!,
    grantId,
    scope: `openid ${API_SCOPES}`,
    gty: 'authorization_code',
    authTime: Math.floor(Date.now() / 1000),
    resource: audience,
    ...(session ? { sessionUid: session.uid, sid: session.sid, expiresWithSession: true } : {}),
  } as never);
  refreshTokens.push(await token.save());
}

/** The checked floor's account of a chain, enabled, and the SSO session its tokens expire with. */
async function checkedSession(accountId: string, grantId: string): Promise<{ uid: string; sid: string }> {
  await checkedEngine!.saveAccount(accountId);
  const uid = randomBytes(16).toString('base64url');
  const sid = randomBytes(16).toString('base64url');
  // oidc-provider's types leave out the Session constructor's payload and save's time to live.
  const Session = provider.Session as unknown as new (payload: object) => { save(ttl: number): Promise<string> };
  const session = new Session({ jti: randomBytes(16).toString('base64url'), uid, accountId, loginTs: Math.floor(Date.now() / 1000), authorizations: { app: { sid, grantId } } });
  await session.save(14 * 86_400);
  return { uid, sid };
}

process.send?.({ port, secrets, refreshTokens });
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => void (floor?.close() ?? checked?.flush().then(() => checkedEngine!.close()) ?? Promise.resolve()).finally(() => process.exit(0)));
});
