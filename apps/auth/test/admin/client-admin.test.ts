/**
 * The client service's reads and refusals (admin/client-admin.ts) on SQLite and PostgreSQL:
 * keyset pages with an opaque cursor, views without secrets, coded errors. Rotation and the
 * changes on the wire are in test/flow/client-secret-rotation.test.ts.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createAuditor } from '../../src/audit/auditor.ts';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { CLI_OPERATOR } from '../../src/audit/actor.ts';
import { createClientAdmin, type ClientAdmin } from '../../src/admin/client-admin.ts';
import { ClientRegistryError, createClientStore } from '../../src/clients/client-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const NOW = 1_790_000_000_000;

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ClientRegistryError);
  return { code: (error as ClientRegistryError).code, message: (error as ClientRegistryError).message };
}

describe.each(TEST_ENGINES)('client service on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const admin = (): ClientAdmin =>
    createClientAdmin({ clients: createClientStore(database.db, createSecretBox(Buffer.alloc(32, 7)), () => NOW), audit: createAuditor({ logger: pino({ level: 'silent' }) }) });

  it('creates and shows clients without their secrets', async () => {
    const created = await admin().create(CLI_OPERATOR, { clientId: 'b-app', redirectUris: ['https://b.example/cb'] });
    expect(created.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.client).toEqual({
      clientId: 'b-app',
      redirectUris: ['https://b.example/cb'],
      postLogoutRedirectUris: [],
      public: false,
      tokenEndpointAuthMethod: 'client_secret_basic',
      grantTypes: ['authorization_code', 'refresh_token'],
      name: 'b-app',
      createdAt: NOW,
    });
    expect(await admin().create(CLI_OPERATOR, { clientId: 'a-spa', redirectUris: ['https://a.example/cb'], public: true })).toEqual({
      client: expect.objectContaining({ clientId: 'a-spa', public: true, tokenEndpointAuthMethod: 'none' }),
    });
    await admin().create(CLI_OPERATOR, { clientId: 'c-svc', redirectUris: [], grantTypes: ['client_credentials'] });
    await admin().rotateSecret(CLI_OPERATOR, 'c-svc', { graceSeconds: 60 });
    const svc = await admin().get('c-svc');
    expect(svc).toMatchObject({ previousSecretExpiresAt: NOW + 60_000, secretRotatedAt: NOW });
    expect(Object.keys(svc)).not.toContain('clientSecret');
    expect(Object.keys(svc)).not.toContain('previousClientSecret');
    expect(JSON.stringify(await admin().list())).not.toContain(created.clientSecret);
  });

  it('pages by client id with an opaque cursor', async () => {
    const first = await admin().list({ limit: 2 });
    expect(first.items.map((c) => c.clientId)).toEqual(['a-spa', 'b-app']);
    expect(first.next).toEqual(expect.any(String));
    expect(first.next).not.toContain('b-app');
    const second = await admin().list({ limit: 2, after: first.next! });
    expect(second).toEqual({ items: [expect.objectContaining({ clientId: 'c-svc' })], next: null });
    expect((await admin().list({ limit: 3 })).next).toBeNull();
    expect((await admin().list()).items.map((c) => c.clientId)).toEqual(['a-spa', 'b-app', 'c-svc']);
    for (const after of ['b-app', 'not base64 !', Buffer.from('{"c":5}').toString('base64url'), Buffer.from('[]').toString('base64url')]) {
      expect(await refusal(admin().list({ limit: 2, after }))).toEqual({ code: 'invalid_input', message: 'the cursor is not one this server issued' });
    }
  });

  it('refuses an unknown client, an empty update and a duplicate with a coded error', async () => {
    const unknown = { code: 'unknown_client', message: 'unknown client "ghost"' };
    expect(await refusal(admin().get('ghost'))).toEqual(unknown);
    expect(await refusal(admin().update(CLI_OPERATOR, 'ghost', { name: 'x' }))).toEqual(unknown);
    expect(await refusal(admin().remove(CLI_OPERATOR, 'ghost'))).toEqual(unknown);
    expect(await refusal(admin().update(CLI_OPERATOR, 'b-app', {}))).toEqual({
      code: 'invalid_input',
      message: 'nothing to update: give redirect URIs, post-logout redirect URIs, grant types, a name, response types, an auth method, keys, first-party, DPoP, a logo or a token-exchange policy',
    });
    expect(await refusal(admin().create(CLI_OPERATOR, { clientId: 'b-app', redirectUris: ['https://b.example/cb'] }))).toEqual({
      code: 'duplicate_client',
      message: 'client "b-app" already exists',
    });
    await admin().remove(CLI_OPERATOR, 'b-app');
    expect(await refusal(admin().get('b-app'))).toEqual({ code: 'unknown_client', message: 'unknown client "b-app"' });
  });
});
