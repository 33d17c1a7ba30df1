/**
 * Development only (AUTH_DEV_SEED, on by default outside production): registers the dev
 * clients app-one, app-two (first-party: no consent page; each told of the end of a session at its
 * /backchannel-logout, with `sid`) and the API's introspection client
 * `api`, and a demo user, each once. Their well-known secrets come from DEV_DEFAULTS and are never used in production.
 * With the demo user (so only on a fresh development database; an existing one keeps its
 * policy), it demonstrates the access policy: `movies:write` only for the group `editors`,
 * which the demo user is in (the landing page adds and deletes movies).
 */
import { DEV_DEFAULTS } from '@gatehouse/contracts';
import type { AuthConfig } from '../config/config.ts';
import type { AuthServices } from '../services.ts';
import { hashPassword } from '../accounts/password.ts';

/** The access policy the development seed demonstrates. */
const DEV_WRITE_POLICY = { scope: 'movies:write', groups: ['editors'] } as const;

export interface SeedResult {
  created: string[];
  banner: string;
}

export async function seedDevelopment(config: AuthConfig, services: AuthServices): Promise<SeedResult> {
  const created: string[] = [];
  for (const client of config.devClients) {
    const existing = await services.clients.find(client.clientId);
    if (existing) {
      // A dev app registered before first-party clients existed (migration 018) becomes one.
      if (!existing.firstParty) await services.clients.update(client.clientId, { firstParty: true });
      // A dev app registered before back-channel logout existed (migration 024) gets its URI.
      if (!existing.backchannelLogoutUri) await services.clients.update(client.clientId, { backchannelLogoutUri: client.backchannelLogoutUri, backchannelLogoutSessionRequired: true });
      continue;
    }
    await services.clients.create({
      clientId: client.clientId,
      name: client.clientId,
      redirectUris: [client.redirectUri],
      postLogoutRedirectUris: [client.postLogoutRedirectUri],
      clientSecret: DEV_DEFAULTS.clientSecrets[client.clientId],
      grantTypes: ['authorization_code', 'refresh_token'],
      // The dev apps are the operator's own: they skip the consent page (prompt=consent still shows it).
      firstParty: true,
      // Signing out of one dev app signs the browser out of the other at once (Back-Channel Logout 1.0).
      backchannelLogoutUri: client.backchannelLogoutUri,
      backchannelLogoutSessionRequired: true,
    });
    created.push(`client ${client.clientId}`);
  }
  if (!(await services.clients.find('api'))) {
    await services.clients.create({
      clientId: 'api',
      name: 'Gatehouse API',
      redirectUris: [],
      grantTypes: ['client_credentials'],
      clientSecret: DEV_DEFAULTS.clientSecrets.api,
    });
    created.push('client api');
  }
  const demo = DEV_DEFAULTS.demoUser;
  let account = await services.accounts.findByUsername(demo.username);
  if (!account) {
    account = await services.accounts.create({
      username: demo.username,
      email: demo.email,
      name: demo.name,
      groups: [...demo.groups],
      passwordHash: await hashPassword(demo.password),
    });
    created.push(`user ${demo.username}`);
    if (config.api.scopes.includes(DEV_WRITE_POLICY.scope) && (await services.scopePolicies.list()).length === 0) {
      await services.scopePolicies.restrict(DEV_WRITE_POLICY.scope, DEV_WRITE_POLICY.groups);
      created.push(`scope policy ${DEV_WRITE_POLICY.scope} (${DEV_WRITE_POLICY.groups.join(',')})`);
    }
  }
  const app = config.devClients[0]?.redirectUri.replace(/\/callback$/, '/') ?? '';
  const totpHint = account.totpEnrolled
    ? `your authenticator app (re-enroll with: pnpm authctl user totp ${demo.username})`
    : 'scan the QR code shown at your first sign-in with any authenticator app';
  const banner = [
    '',
    '  Gatehouse is running (development mode)',
    `  Open:      ${app}`,
    `  Username:  ${demo.username}`,
    `  Password:  ${demo.password}`,
    `  Code:      ${totpHint}`,
    `  Issuer:    ${config.issuer}`,
    '',
  ].join('\n');
  return { created, banner: `${banner}\n` };
}
