import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { createClientStore, toOidcClientMetadata, type ClientRegistryError, type ClientStore } from '../../src/clients/client-store.ts';
import { TOKEN_EXCHANGE_GRANT } from '../../src/clients/token-exchange-policy.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 5));
const NOW = 1_790_000_000_000;
const POLICY = { audiences: ['https://api.example'], scopes: ['movies:read'] };

describe.each(TEST_ENGINES)('client store: token-exchange policy (migration 023) on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const store = (): ClientStore => createClientStore(database.db, box, () => NOW);
  const column = async (clientId: string) => (await database.db.selectFrom('clients').select('token_exchange').where('client_id', '=', clientId).executeTakeFirstOrThrow()).token_exchange;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => ({ code: (e as ClientRegistryError).code, field: (e as ClientRegistryError).field, message: (e as ClientRegistryError).message }),
    );

  it('has no policy by default (column null, nothing in the record)', async () => {
    await store().create({ clientId: 'plain-x', redirectUris: ['https://plain.example/cb'] });
    expect(await store().find('plain-x')).not.toHaveProperty('tokenExchange');
    expect(await column('plain-x')).toBeNull();
  });

  it('stores the grant with its policy, without duplicates, and keeps the grant in the oidc-provider metadata', async () => {
    await store().create({
      clientId: 'rs-one',
      redirectUris: [],
      grantTypes: [TOKEN_EXCHANGE_GRANT],
      tokenExchange: { audiences: ['https://api.example', 'https://api.example'], scopes: ['movies:read', 'cars:read', 'movies:read'] },
    });
    const found = (await store().find('rs-one'))!;
    expect(found).toMatchObject({ grantTypes: [TOKEN_EXCHANGE_GRANT], tokenExchange: { audiences: ['https://api.example'], scopes: ['movies:read', 'cars:read'] } });
    expect(JSON.parse((await column('rs-one'))!)).toEqual({ audiences: ['https://api.example'], scopes: ['movies:read', 'cars:read'] });
    expect(toOidcClientMetadata(found)).toMatchObject({ grant_types: [TOKEN_EXCHANGE_GRANT], response_types: [] });
  });

  it('update() replaces the policy, keeps it across other changes, and drops it with the grant', async () => {
    await store().create({ clientId: 'rs-two', redirectUris: [], grantTypes: ['client_credentials', TOKEN_EXCHANGE_GRANT], tokenExchange: POLICY });
    expect(await store().update('rs-two', { name: 'RS Two' })).toMatchObject({ name: 'RS Two', tokenExchange: POLICY });
    const wider = { audiences: ['https://api.example', 'https://other.example'], scopes: ['movies:read', 'movies:write'] };
    expect(await store().update('rs-two', { tokenExchange: wider })).toMatchObject({ tokenExchange: wider });
    const dropped = await store().update('rs-two', { grantTypes: ['client_credentials'] });
    expect(dropped.grantTypes).toEqual(['client_credentials']);
    expect(dropped).not.toHaveProperty('tokenExchange');
    expect(await column('rs-two')).toBeNull();
  });

  it.each([
    ['the grant without a policy', { grantTypes: [TOKEN_EXCHANGE_GRANT] }, 'the token-exchange grant needs a token_exchange policy (audiences and scopes)'],
    ['a policy without the grant', { grantTypes: ['client_credentials'], tokenExchange: POLICY }, 'token_exchange applies only to a client with the token-exchange grant'],
    ['no audience', { grantTypes: [TOKEN_EXCHANGE_GRANT], tokenExchange: { audiences: [], scopes: ['a'] } }, 'token_exchange needs at least one audience'],
    ['no scope', { grantTypes: [TOKEN_EXCHANGE_GRANT], tokenExchange: { audiences: ['x'], scopes: [] } }, 'token_exchange needs at least one scope'],
    ['an audience with a space', { grantTypes: [TOKEN_EXCHANGE_GRANT], tokenExchange: { audiences: ['a b'], scopes: ['a'] } }, 'token_exchange audience "a b" must be 1-2048 characters without whitespace'],
    ['a scope with a quote', { grantTypes: [TOKEN_EXCHANGE_GRANT], tokenExchange: { audiences: ['x'], scopes: ['a"b'] } }, 'token_exchange scope "a"b" is not a scope token'],
  ])('refuses %s (invalid_input, field token_exchange)', async (_label, input, message) => {
    expect(await refusal(store().create({ clientId: 'bad-x', redirectUris: [], ...input }))).toEqual({ code: 'invalid_input', field: 'token_exchange', message });
  });

  it('refuses the grant to a public client', async () => {
    expect(await refusal(store().create({ clientId: 'pub-x', redirectUris: [], public: true, grantTypes: [TOKEN_EXCHANGE_GRANT], tokenExchange: POLICY }))).toEqual({
      code: 'invalid_input',
      field: 'grant_types',
      message: 'a public client cannot use the token-exchange grant',
    });
  });
});
