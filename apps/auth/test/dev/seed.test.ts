import { describe, expect, it } from 'vitest';
import { DEV_DEFAULTS } from '@gatehouse/contracts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { loadConfig } from '../../src/config/config.ts';
import { seedDevelopment } from '../../src/dev/seed.ts';
import { createAuthServices } from '../../src/services.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

describe.each(TEST_ENGINES)('the development seed on %s', (engine) => {
  const database = useAuthDatabase(engine);

  it('demonstrates the access policy on a fresh database: movies:write for editors, and demo is an editor', async () => {
    const config = loadConfig({ NODE_ENV: 'development', AUTH_DATABASE_URL: database.url });
    // The services need only the open Kysely instance of the test database and its engine.
    const services = createAuthServices(config, { db: database.db, engine } as never);
    const first = await seedDevelopment(config, services);
    expect(first.created).toEqual(['client app-one', 'client app-two', 'client api', 'user demo', 'scope policy movies:write (editors)']);
    expect((await services.scopePolicies.list()).map((p) => [p.scope, p.groups])).toEqual([['movies:write', ['editors']]]);
    const demo = await services.accounts.findByUsername(DEV_DEFAULTS.demoUser.username);
    expect(demo?.groups).toEqual(['users', 'demo', 'editors']);
    expect(await services.scopeGate.grantable(['movies:read', 'movies:write'], 'app-one', demo!.id)).toEqual(['movies:read', 'movies:write']);
    const viewer = await services.accounts.create({ username: 'viewer', email: 'v@example.com', name: 'Viewer', groups: ['users'], passwordHash: 'h' });
    expect(await services.scopeGate.grantable(['movies:read', 'movies:write'], 'app-one', viewer.id)).toEqual(['movies:read']);

    // Seeding again (an existing database, even one whose operator cleared the policy) adds nothing.
    await services.scopePolicies.clear('movies:write');
    expect((await seedDevelopment(config, services)).created).toEqual([]);
    expect(await services.scopePolicies.list()).toEqual([]);
  });

  it('registers the dev apps first-party (no consent page), and makes an older registration of one first-party', async () => {
    const config = loadConfig({ NODE_ENV: 'development', AUTH_DATABASE_URL: database.url });
    const services = createAuthServices(config, { db: database.db, engine } as never);
    expect(await services.clients.find('app-one')).toMatchObject({ firstParty: true });
    expect(await services.clients.find('app-two')).toMatchObject({ firstParty: true });
    // The API's introspection client signs nobody in: it is not first-party.
    expect(await services.clients.find('api')).not.toHaveProperty('firstParty');
    // A dev database from before migration 018: app-two registered without it.
    await services.clients.update('app-two', { firstParty: false });
    expect((await seedDevelopment(config, services)).created).toEqual([]);
    expect(await services.clients.find('app-two')).toMatchObject({ firstParty: true });
  });

  it('registers each dev app\'s back-channel logout URI with sid, and gives one to an older registration', async () => {
    const config = loadConfig({ NODE_ENV: 'development', AUTH_DATABASE_URL: database.url, APP_TWO_URL: 'http://localhost:3002' });
    const services = createAuthServices(config, { db: database.db, engine } as never);
    await seedDevelopment(config, services);
    expect(await services.clients.find('app-two')).toMatchObject({ backchannelLogoutUri: 'http://localhost:3002/backchannel-logout', backchannelLogoutSessionRequired: true });
    await services.clients.update('app-one', { backchannelLogoutUri: null });
    expect((await seedDevelopment(config, services)).created).toEqual([]);
    expect(await services.clients.find('app-one')).toMatchObject({ backchannelLogoutUri: config.devClients[0]!.backchannelLogoutUri, backchannelLogoutSessionRequired: true });
  });
});
