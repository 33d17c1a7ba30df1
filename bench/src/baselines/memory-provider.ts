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
import { floorAdapter, type FloorEngine, type FloorKind } from './floor-adapter.ts';
import { postgresFloor } from './postgres-floor.ts';
import { sqliteFloor } from './sqlite-floor.ts';

const chains = Number(process.argv[2] ?? 16);
const audience = process.argv[3] ?? 'http://127.0.0.1:9/api';
const databaseUrl = process.argv[4];
const kind = process.argv[5] as FloorKind | undefined;
if (databaseUrl !== undefined && kind !== 'refresh' && kind !== 'client') throw new Error(`a floor's kind is refresh or client, not ${kind}`);
const floor: FloorEngine | undefined =
  databaseUrl === undefined ? undefined : databaseUrl.startsWith('sqlite:') ? sqliteFloor(databaseUrl.slice('sqlite:'.length), kind!) : await postgresFloor(databaseUrl, kind!);
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
  ...(floor ? { adapter: floorAdapter(floor) } : {}),
  jwks: { keys: [jwk] } as Configuration['jwks'],
  clients: clientFloor ? [{ ...appClient }] : [{ ...appClient }, { ...machineClient }],
  findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
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

const client = await provider.Client.find('app');
const refreshTokens: string[] = [];
for (let i = 0; i < chains; i++) {
  const accountId = `user-${i}`;
  const grant = new provider.Grant({ accountId, clientId: 'app' });
  grant.addOIDCScope('openid');
  grant.addResourceScope(audience, API_SCOPES);
  const grantId = await grant.save();
  const token = new provider.RefreshToken({
    accountId,
    client: client!,
    grantId,
    scope: `openid ${API_SCOPES}`,
    gty: 'authorization_code',
    authTime: Math.floor(Date.now() / 1000),
    resource: audience,
  } as never);
  refreshTokens.push(await token.save());
}
process.send?.({ port, secrets, refreshTokens });
process.on('disconnect', () => {
  server.closeAllConnections();
  server.close(() => void (floor?.close() ?? Promise.resolve()).finally(() => process.exit(0)));
});
