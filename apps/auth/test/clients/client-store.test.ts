import { describe, expect, it } from 'vitest';
import { TEST_ENGINES } from '@gatehouse/db/testing';
import { ClientRegistryError, createClientStore, responseTypesOf, toOidcClientMetadata, type ClientRecord, type ClientStore } from '../../src/clients/client-store.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { useAuthDatabase } from '../support/auth-test-database.ts';

const box = createSecretBox(Buffer.alloc(32, 5));
const NOW = 1_790_000_000_000;

async function expectClientError(promise: Promise<unknown>, code: ClientRegistryError['code'], message: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientRegistryError);
  expect({ code: (error as ClientRegistryError).code, message: (error as ClientRegistryError).message }).toEqual({ code, message });
}

describe('toOidcClientMetadata', () => {
  const base: ClientRecord = {
    clientId: 'app-one',
    clientSecret: 's3cret-s3cret-s3cret',
    redirectUris: ['https://app.example/callback'],
    postLogoutRedirectUris: ['https://app.example/signed-out'],
    public: false,
    tokenEndpointAuthMethod: 'client_secret_basic',
    grantTypes: ['authorization_code', 'refresh_token'],
    name: 'App One',
    createdAt: NOW,
  };

  it('maps a confidential client', () => {
    expect(toOidcClientMetadata(base)).toEqual({
      client_id: 'app-one',
      client_secret: 's3cret-s3cret-s3cret',
      redirect_uris: ['https://app.example/callback'],
      post_logout_redirect_uris: ['https://app.example/signed-out'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      client_name: 'App One',
      api_scope_limit: 'null',
    });
    expect(toOidcClientMetadata({ ...base, allowedScopes: ['movies:read'] })).toMatchObject({ api_scope_limit: '["movies:read"]' });
  });

  it('omits the secret of a public client and defaults the grant types', () => {
    const { clientSecret: _unused, ...rest } = base;
    expect(toOidcClientMetadata({ ...rest, public: true, tokenEndpointAuthMethod: 'none', grantTypes: [] })).toEqual({
      client_id: 'app-one',
      redirect_uris: ['https://app.example/callback'],
      post_logout_redirect_uris: ['https://app.example/signed-out'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      client_name: 'App One',
      api_scope_limit: 'null',
    });
  });

  it('maps first-party, DPoP, private_key_jwt keys and the id_token response type', () => {
    const jwks = { keys: [{ kty: 'EC', crv: 'P-256', x: 'x-coordinate', y: 'y-coordinate', kid: 'k1' }] };
    const { clientSecret: _unused, ...keyed } = base;
    expect(toOidcClientMetadata({ ...keyed, tokenEndpointAuthMethod: 'private_key_jwt', jwks, firstParty: true, dpopBoundAccessTokens: true })).toEqual({
      client_id: 'app-one',
      redirect_uris: ['https://app.example/callback'],
      post_logout_redirect_uris: ['https://app.example/signed-out'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'private_key_jwt',
      client_name: 'App One',
      api_scope_limit: 'null',
      jwks,
      first_party: true,
      dpop_bound_access_tokens: true,
    });
    // A private_key_jwt client never hands oidc-provider a secret, even one kept from an earlier method.
    expect(toOidcClientMetadata({ ...base, tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: 'https://app.example/jwks' })).not.toHaveProperty('client_secret');
    expect(toOidcClientMetadata({ ...base, tokenEndpointAuthMethod: 'client_secret_jwt' })).toMatchObject({ client_secret: 's3cret-s3cret-s3cret', token_endpoint_auth_method: 'client_secret_jwt' });
    expect(toOidcClientMetadata({ ...base, responseTypes: ['id_token'], grantTypes: ['implicit'] })).toMatchObject({ response_types: ['id_token'], grant_types: ['implicit'] });
    expect(toOidcClientMetadata({ ...base, responseTypes: ['id_token'], grantTypes: ['implicit'] })).not.toHaveProperty('application_type');
    // http loopback URIs of an implicit client: native, the only kind oidc-provider accepts them from.
    expect(toOidcClientMetadata({ ...base, redirectUris: ['http://127.0.0.1:3000/callback'], responseTypes: ['code', 'id_token'], grantTypes: ['authorization_code', 'implicit'] })).toMatchObject({
      application_type: 'native',
      response_types: ['code', 'id_token'],
    });
    expect(toOidcClientMetadata({ ...base, redirectUris: ['http://127.0.0.1:3000/callback'] })).not.toHaveProperty('application_type');
  });

  it('has no response types without the authorization_code grant', () => {
    expect(toOidcClientMetadata({ ...base, redirectUris: [], postLogoutRedirectUris: [], grantTypes: ['client_credentials'] })).toMatchObject({
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    });
  });
});

describe.each(TEST_ENGINES)('client store on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const store = (): ClientStore => createClientStore(database.db, box, () => NOW);

  it('creates a confidential client with a generated 32-byte secret, sealed at rest', async () => {
    const created = await store().create({
      clientId: 'app-one',
      redirectUris: ['http://localhost:3001/callback'],
      postLogoutRedirectUris: ['http://localhost:3001/signed-out'],
    });
    expect(created.clientId).toBe('app-one');
    expect(created.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(created.clientSecret!, 'base64url')).toHaveLength(32);
    expect(await store().find('app-one')).toEqual({
      clientId: 'app-one',
      clientSecret: created.clientSecret,
      redirectUris: ['http://localhost:3001/callback'],
      postLogoutRedirectUris: ['http://localhost:3001/signed-out'],
      public: false,
      tokenEndpointAuthMethod: 'client_secret_basic',
      grantTypes: ['authorization_code', 'refresh_token'],
      name: 'app-one',
      createdAt: NOW,
    });
    const raw = await database.db.selectFrom('clients').select('client_secret_sealed').where('client_id', '=', 'app-one').executeTakeFirstOrThrow();
    expect(raw.client_secret_sealed).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    expect(raw.client_secret_sealed).not.toContain(created.clientSecret);
  });

  it('refuses a duplicate client id', async () => {
    await expectClientError(
      store().create({ clientId: 'app-one', redirectUris: ['https://a.example/cb'] }),
      'duplicate_client',
      'client "app-one" already exists',
    );
  });

  it('creates a public client without a secret', async () => {
    expect(await store().create({ clientId: 'spa', redirectUris: ['https://spa.example/cb'], public: true, name: 'The SPA' })).toEqual({
      clientId: 'spa',
    });
    expect(await store().find('spa')).toEqual({
      clientId: 'spa',
      redirectUris: ['https://spa.example/cb'],
      postLogoutRedirectUris: [],
      public: true,
      tokenEndpointAuthMethod: 'none',
      grantTypes: ['authorization_code', 'refresh_token'],
      name: 'The SPA',
      createdAt: NOW,
    });
  });

  it('creates a client_credentials client without redirect URIs, with an explicit secret and auth method', async () => {
    expect(
      await store().create({
        clientId: 'api-introspection',
        redirectUris: [],
        grantTypes: ['client_credentials'],
        authMethod: 'client_secret_post',
        clientSecret: 'dev-api-secret',
      }),
    ).toEqual({ clientId: 'api-introspection', clientSecret: 'dev-api-secret' });
    expect(await store().find('api-introspection')).toMatchObject({
      clientSecret: 'dev-api-secret',
      redirectUris: [],
      tokenEndpointAuthMethod: 'client_secret_post',
      grantTypes: ['client_credentials'],
    });
  });

  it('validates redirect URIs and names the bad one', async () => {
    const cases: Array<[string, string]> = [
      ['/callback', 'redirect URI "/callback" is not an absolute URL'],
      ['ftp://a.example/cb', 'redirect URI "ftp://a.example/cb" must use https (or http on localhost)'],
      ['javascript:alert(1)', 'redirect URI "javascript:alert(1)" must use https (or http on localhost)'],
      ['http://app.example/cb', 'redirect URI "http://app.example/cb" must use https; http is allowed only for localhost and 127.0.0.1'],
      ['https://app.example/cb#x', 'redirect URI "https://app.example/cb#x" must not contain a fragment'],
      ['https://user:pw@app.example/cb', 'redirect URI "https://user:pw@app.example/cb" must not contain credentials'],
      // Characters the URL parser keeps in a host but that would end or split a CSP directive.
      ["https://a;script-src*.example/cb", 'redirect URI "https://a;script-src*.example/cb" must name its host by a DNS name or an IP address'],
      ["https://a,b.example/cb", 'redirect URI "https://a,b.example/cb" must name its host by a DNS name or an IP address'],
    ];
    for (const [uri, message] of cases) {
      await expectClientError(store().create({ clientId: 'bad', redirectUris: [uri] }), 'invalid_redirect_uri', message);
      await expectClientError(
        store().create({ clientId: 'bad', redirectUris: ['https://ok.example/cb'], postLogoutRedirectUris: [uri] }),
        'invalid_redirect_uri',
        message,
      );
    }
    await expectClientError(
      store().create({ clientId: 'bad', redirectUris: [] }),
      'invalid_redirect_uri',
      'at least one redirect URI is required for the authorization_code grant',
    );
    expect(await store().find('bad')).toBeUndefined();
    // Loopback over http is fine.
    await store().create({ clientId: 'loopback', redirectUris: ['http://127.0.0.1:8080/cb', 'http://localhost/cb'] });
    expect((await store().find('loopback'))!.redirectUris).toEqual(['http://127.0.0.1:8080/cb', 'http://localhost/cb']);
  });

  it('the refusal of an unknown grant type names every grant type a client can be registered with, and only those', async () => {
    const error = await store().create({ clientId: 'grants', redirectUris: ['https://ok.example/cb'], grantTypes: ['urn:example:unknown'] }).then(() => undefined, (e: unknown) => e as ClientRegistryError);
    const listed = /^grant type "urn:example:unknown" is not supported \(use (.+)\)$/.exec(error!.message)?.[1]?.split(', ');
    expect(listed).toEqual(['authorization_code', 'refresh_token', 'client_credentials', 'implicit', 'urn:ietf:params:oauth:grant-type:token-exchange', 'urn:ietf:params:oauth:grant-type:device_code']);
    for (const [i, grant] of listed!.entries()) {
      await store().create({
        clientId: `grant-${i}`,
        redirectUris: ['https://ok.example/cb'],
        grantTypes: [grant],
        ...(grant === 'implicit' ? { responseTypes: ['id_token'] } : {}),
        ...(grant === 'urn:ietf:params:oauth:grant-type:token-exchange' ? { tokenExchange: { audiences: ['https://api.example'], scopes: ['movies:read'] } } : {}),
      });
      expect((await store().find(`grant-${i}`))!.grantTypes).toContain(grant);
      expect(await store().remove(`grant-${i}`)).toBe(true);
    }
  });

  it('validates the other inputs', async () => {
    const ok = { redirectUris: ['https://ok.example/cb'] };
    await expectClientError(
      store().create({ ...ok, clientId: 'has space' }),
      'invalid_input',
      'client_id must be 1-128 characters of letters, digits, ".", "_" or "-"',
    );
    await expectClientError(
      store().create({ ...ok, clientId: 'x', grantTypes: ['password'] }),
      'invalid_input',
      'grant type "password" is not supported (use authorization_code, refresh_token, client_credentials, implicit, urn:ietf:params:oauth:grant-type:token-exchange, urn:ietf:params:oauth:grant-type:device_code)',
    );
    await expectClientError(
      store().create({ ...ok, clientId: 'x', public: true, grantTypes: ['client_credentials'] }),
      'invalid_input',
      'a public client cannot use the client_credentials grant',
    );
    await expectClientError(
      store().create({ ...ok, clientId: 'x', public: true, clientSecret: 'a-secret-of-some-length' }),
      'invalid_input',
      'a public client cannot have a secret',
    );
    await expectClientError(
      store().create({ ...ok, clientId: 'x', public: true, authMethod: 'client_secret_post' }),
      'invalid_input',
      'a public client has no secret, so an auth method does not apply',
    );
    await expectClientError(store().create({ ...ok, clientId: 'x', clientSecret: 'short' }), 'invalid_input', 'client secret must be at least 8 characters');
    await expectClientError(
      store().create({ ...ok, clientId: 'x', idTokenField: 'JWT token' }),
      'invalid_input',
      'ID token field must be 1-64 letters, digits or "_", starting with a letter (e.g. JWT_token)',
    );
    await expectClientError(store().create({ ...ok, clientId: 'x', idTokenField: 'id_token' }), 'invalid_input', 'ID token field "id_token" is already a token-response member');
    expect(await store().find('x')).toBeUndefined();
  });

  it('lists clients by id and removes them', async () => {
    expect((await store().list()).map((c) => c.clientId)).toEqual(['api-introspection', 'app-one', 'loopback', 'spa']);
    expect(await store().remove('loopback')).toBe(true);
    expect(await store().remove('loopback')).toBe(false);
    expect(await store().find('loopback')).toBeUndefined();
    expect((await store().list()).map((c) => c.clientId)).toEqual(['api-introspection', 'app-one', 'spa']);
  });
  it('answers a changed secret at once on the next read (only the opening of a sealed value is remembered)', async () => {
    const clients = store();
    await clients.create({ clientId: 'rotating', redirectUris: [], grantTypes: ['client_credentials'], clientSecret: 'first-secret-first-secret' });
    expect((await clients.find('rotating'))?.clientSecret).toBe('first-secret-first-secret');
    await database.db.updateTable('clients').set({ client_secret_sealed: box.seal('second-secret-second-secret') }).where('client_id', '=', 'rotating').execute();
    expect((await clients.find('rotating'))?.clientSecret).toBe('second-secret-second-secret');
    await clients.remove('rotating');
    expect(await clients.find('rotating')).toBeUndefined();
  });
});

describe.each(TEST_ENGINES)('client store: interop metadata (migration 018) on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const store = (): ClientStore => createClientStore(database.db, box, () => NOW);
  const publicJwk = { kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'k1', use: 'sig', alg: 'ES256' };
  const jwks = { keys: [publicJwk] };
  const row = (clientId: string) =>
    database.db
      .selectFrom('clients')
      .select(['client_secret_sealed', 'token_endpoint_auth_method', 'first_party', 'response_types', 'jwks', 'jwks_uri', 'dpop_bound_access_tokens', 'grant_types'])
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();

  it('defaults: not first-party, code, no keys, no DPoP (columns 0 / null)', async () => {
    await store().create({ clientId: 'plain', redirectUris: ['https://plain.example/cb'] });
    const found = (await store().find('plain'))!;
    for (const key of ['firstParty', 'responseTypes', 'jwks', 'jwksUri', 'dpopBoundAccessTokens']) expect(found).not.toHaveProperty(key);
    expect(responseTypesOf(found)).toEqual(['code']);
    expect(await row('plain')).toMatchObject({ first_party: 0, response_types: null, jwks: null, jwks_uri: null, dpop_bound_access_tokens: 0 });
    expect(responseTypesOf({ grantTypes: ['client_credentials'] })).toEqual([]);
  });

  it('creates a first-party client that requires DPoP', async () => {
    await store().create({ clientId: 'own', redirectUris: ['https://own.example/cb'], firstParty: true, dpopBoundAccessTokens: true });
    expect(await store().find('own')).toMatchObject({ firstParty: true, dpopBoundAccessTokens: true });
    expect(await row('own')).toMatchObject({ first_party: 1, dpop_bound_access_tokens: 1 });
    expect(toOidcClientMetadata((await store().find('own'))!)).toMatchObject({ first_party: true, dpop_bound_access_tokens: true });
  });

  it('creates a private_key_jwt client with inline public keys and no secret', async () => {
    expect(await store().create({ clientId: 'pkjwt', redirectUris: [], grantTypes: ['client_credentials'], authMethod: 'private_key_jwt', jwks })).toEqual({ clientId: 'pkjwt' });
    expect(await store().find('pkjwt')).toEqual({
      clientId: 'pkjwt',
      redirectUris: [],
      postLogoutRedirectUris: [],
      public: false,
      tokenEndpointAuthMethod: 'private_key_jwt',
      grantTypes: ['client_credentials'],
      name: 'pkjwt',
      createdAt: NOW,
      jwks,
    });
    expect(await row('pkjwt')).toMatchObject({ client_secret_sealed: null, token_endpoint_auth_method: 'private_key_jwt', jwks: JSON.stringify(jwks) });
  });

  it('creates a private_key_jwt client with a jwks_uri, and a client_secret_jwt client with a secret', async () => {
    await store().create({ clientId: 'by-uri', redirectUris: ['https://by-uri.example/cb'], authMethod: 'private_key_jwt', jwksUri: 'https://by-uri.example/jwks.json' });
    expect(await store().find('by-uri')).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: 'https://by-uri.example/jwks.json' });
    expect(await store().find('by-uri')).not.toHaveProperty('clientSecret');
    await store().create({ clientId: 'loop-uri', redirectUris: [], grantTypes: ['client_credentials'], authMethod: 'private_key_jwt', jwksUri: 'http://127.0.0.1:9999/jwks' });
    const hs = await store().create({ clientId: 'hs', redirectUris: [], grantTypes: ['client_credentials'], authMethod: 'client_secret_jwt' });
    expect(hs.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await store().find('hs')).toMatchObject({ tokenEndpointAuthMethod: 'client_secret_jwt', clientSecret: hs.clientSecret });
  });

  it('refuses keys that are missing, doubled, private, malformed, or for another method', async () => {
    const m2m = { redirectUris: [], grantTypes: ['client_credentials'], authMethod: 'private_key_jwt' as const };
    const cases: Array<[Parameters<ClientStore['create']>[0], string, string]> = [
      [{ clientId: 'k', ...m2m }, 'jwks', 'a private_key_jwt client needs exactly one of jwks and jwks_uri'],
      [{ clientId: 'k', ...m2m, jwks, jwksUri: 'https://k.example/jwks' }, 'jwks_uri', 'a private_key_jwt client needs exactly one of jwks and jwks_uri'],
      [{ clientId: 'k', ...m2m, jwks: { keys: [{ ...publicJwk, d: 'private-scalar' }] } }, 'jwks', 'jwks key 0 has the private member "d": register the public keys only'],
      [{ clientId: 'k', ...m2m, jwks: { keys: [{ kty: 'RSA', n: 'n', e: 'AQAB', qi: 'q' }] } }, 'jwks', 'jwks key 0 has the private member "qi": register the public keys only'],
      [{ clientId: 'k', ...m2m, jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, 'jwks', 'jwks key 0 has the private member "k": register the public keys only'],
      [{ clientId: 'k', ...m2m, jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519' }] } }, 'jwks', 'jwks key 0 (OKP) lacks "x"'],
      [{ clientId: 'k', ...m2m, jwks: { keys: [] } }, 'jwks', 'jwks must be a JSON Web Key Set: an object with a non-empty "keys" array'],
      [{ clientId: 'k', ...m2m, jwks: [] as never }, 'jwks', 'jwks must be a JSON Web Key Set: an object with a "keys" array'],
      [{ clientId: 'k', ...m2m, jwksUri: 'http://keys.example/jwks' }, 'jwks_uri', 'jwks_uri "http://keys.example/jwks" must use https; http is allowed only for localhost and 127.0.0.1'],
      [{ clientId: 'k', ...m2m, jwksUri: 'keys' }, 'jwks_uri', 'jwks_uri "keys" is not an absolute URL'],
      [{ clientId: 'k', ...m2m, jwks, clientSecret: 'a-secret-of-length' }, 'client_secret', 'a private_key_jwt client authenticates with its keys: it has no secret'],
      [{ clientId: 'k', redirectUris: [], grantTypes: ['client_credentials'], jwks }, 'jwks', 'jwks applies only to the private_key_jwt auth method'],
      [{ clientId: 'k', redirectUris: [], grantTypes: ['client_credentials'], authMethod: 'client_secret_post', jwksUri: 'https://k.example/jwks' }, 'jwks_uri', 'jwks_uri applies only to the private_key_jwt auth method'],
      [{ clientId: 'k', redirectUris: [], grantTypes: ['client_credentials'], authMethod: 'tls_client_auth' as never }, 'token_endpoint_auth_method', 'auth method "tls_client_auth" is not supported (use client_secret_basic, client_secret_post, client_secret_jwt, private_key_jwt)'],
    ];
    for (const [input, field, message] of cases) {
      const error = await store().create(input).then(() => undefined, (e: unknown) => e as ClientRegistryError);
      expect({ code: error?.code, field: error?.field, message: error?.message }).toEqual({ code: 'invalid_input', field, message });
    }
    expect(await store().find('k')).toBeUndefined();
  });

  it('registers the id_token response type with the implicit grant, and checks response types against grants', async () => {
    await store().create({ clientId: 'eoc', redirectUris: ['http://localhost:3000/callback'], responseTypes: ['id_token'] });
    expect(await store().find('eoc')).toMatchObject({ responseTypes: ['id_token'], grantTypes: ['implicit'] });
    expect(await row('eoc')).toMatchObject({ response_types: '["id_token"]', grant_types: '["implicit"]' });
    expect(toOidcClientMetadata((await store().find('eoc'))!)).toMatchObject({ response_types: ['id_token'], grant_types: ['implicit'], application_type: 'native' });
    await store().create({ clientId: 'both', redirectUris: ['https://both.example/cb'], responseTypes: ['code', 'id_token'] });
    expect(await store().find('both')).toMatchObject({ responseTypes: ['code', 'id_token'], grantTypes: ['authorization_code', 'refresh_token', 'implicit'] });
    // The implicit grant without a choice of response types: id_token (and code with authorization_code).
    await store().create({ clientId: 'by-grant', redirectUris: ['https://grant.example/cb'], grantTypes: ['authorization_code', 'implicit'] });
    expect(await store().find('by-grant')).toMatchObject({ responseTypes: ['code', 'id_token'], grantTypes: ['authorization_code', 'implicit'] });
    // The default, given explicitly, is stored as the default.
    await store().create({ clientId: 'code-only', redirectUris: ['https://code.example/cb'], responseTypes: ['code'] });
    expect(await store().find('code-only')).not.toHaveProperty('responseTypes');
    const cases: Array<[Parameters<ClientStore['create']>[0], string, string, string]> = [
      [{ clientId: 'r', redirectUris: ['https://r.example/cb'], responseTypes: ['token'] }, 'invalid_input', 'response_types', 'response type "token" is not supported (use code or id_token)'],
      [{ clientId: 'r', redirectUris: ['https://r.example/cb'], responseTypes: ['code id_token'] }, 'invalid_input', 'response_types', 'response type "code id_token" is not supported (use code or id_token)'],
      [{ clientId: 'r', redirectUris: [], grantTypes: ['client_credentials'], responseTypes: ['code'] }, 'invalid_input', 'response_types', 'the response type code and the authorization_code grant go together: give both or neither'],
      [{ clientId: 'r', redirectUris: ['https://r.example/cb'], grantTypes: ['authorization_code'], responseTypes: ['id_token'] }, 'invalid_input', 'response_types', 'the response type code and the authorization_code grant go together: give both or neither'],
      [{ clientId: 'r', redirectUris: ['https://r.example/cb'], grantTypes: ['authorization_code', 'implicit'], responseTypes: ['code'] }, 'invalid_input', 'grant_types', 'the implicit grant needs the response type id_token (implicit access tokens are not supported)'],
      [{ clientId: 'r', redirectUris: [], responseTypes: ['id_token'] }, 'invalid_redirect_uri', 'redirect_uris', 'at least one redirect URI is required for the response type id_token'],
      [{ clientId: 'r', redirectUris: ['http://localhost/cb', 'https://127.0.0.1/cb'], responseTypes: ['id_token'] }, 'invalid_redirect_uri', 'redirect_uris', 'a client using the response type id_token cannot mix http and https URIs on a loopback host'],
    ];
    for (const [input, code, field, message] of cases) {
      const error = await store().create(input).then(() => undefined, (e: unknown) => e as ClientRegistryError);
      expect({ code: error?.code, field: error?.field, message: error?.message }).toEqual({ code, field, message });
    }
  });

  it('updates the new fields: first-party, DPoP, response types with their grants, method and keys', async () => {
    expect(await store().update('plain', { firstParty: true, dpopBoundAccessTokens: true })).toMatchObject({ firstParty: true, dpopBoundAccessTokens: true });
    expect(await store().update('plain', { firstParty: false })).not.toHaveProperty('firstParty');
    expect(await store().update('plain', { responseTypes: ['code', 'id_token'] })).toMatchObject({ responseTypes: ['code', 'id_token'], grantTypes: ['authorization_code', 'refresh_token', 'implicit'] });
    const idOnly = await store().update('plain', { responseTypes: ['id_token'] });
    expect(idOnly).toMatchObject({ responseTypes: ['id_token'], grantTypes: ['implicit'] });
    const back = await store().update('plain', { responseTypes: ['code'] });
    expect(back).toMatchObject({ grantTypes: ['authorization_code'] });
    expect(back).not.toHaveProperty('responseTypes');
    expect(await row('plain')).toMatchObject({ response_types: null, first_party: 0, dpop_bound_access_tokens: 1 });
    await expectClientError(store().update('plain', { responseTypes: [] }), 'invalid_input', 'give at least one response type (code or id_token)');

    // To private_key_jwt: keys needed; the secret is kept, unused, for a switch back.
    const secret = (await store().find('plain'))!.clientSecret;
    await expectClientError(store().update('plain', { authMethod: 'private_key_jwt' }), 'invalid_input', 'a private_key_jwt client needs exactly one of jwks and jwks_uri');
    expect(await store().update('plain', { authMethod: 'private_key_jwt', jwks })).toMatchObject({ tokenEndpointAuthMethod: 'private_key_jwt', jwks, clientSecret: secret });
    // New keys replace the old, by value or by URL.
    const byUri = await store().update('plain', { jwksUri: 'https://plain.example/jwks' });
    expect(byUri).toMatchObject({ jwksUri: 'https://plain.example/jwks' });
    expect(byUri).not.toHaveProperty('jwks');
    // Another method drops the keys.
    const basic = await store().update('plain', { authMethod: 'client_secret_basic' });
    expect(basic).toMatchObject({ tokenEndpointAuthMethod: 'client_secret_basic', clientSecret: secret });
    expect(basic).not.toHaveProperty('jwksUri');
    expect(await row('plain')).toMatchObject({ token_endpoint_auth_method: 'client_secret_basic', jwks: null, jwks_uri: null });
    await expectClientError(store().update('plain', { jwks }), 'invalid_input', 'jwks applies only to the private_key_jwt auth method');

    // A client created without a secret gets one by rotation before it can use a secret method.
    await expectClientError(store().update('pkjwt', { authMethod: 'client_secret_post' }), 'invalid_input', 'client "pkjwt" has no secret: rotate its secret first, then choose client_secret_post');
    const rotated = await store().rotateSecret('pkjwt', 0);
    expect(toOidcClientMetadata((await store().find('pkjwt'))!)).not.toHaveProperty('client_secret');
    expect(await store().update('pkjwt', { authMethod: 'client_secret_post' })).toMatchObject({ tokenEndpointAuthMethod: 'client_secret_post', clientSecret: rotated.clientSecret });
    await store().create({ clientId: 'pub', redirectUris: ['https://pub.example/cb'], public: true });
    await expectClientError(store().update('pub', { authMethod: 'client_secret_post' }), 'invalid_input', 'a public client has no secret, so an auth method does not apply');
  });
});

describe.each(TEST_ENGINES)('client store: update and secret rotation on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const clock = { now: NOW };
  const store = (): ClientStore => createClientStore(database.db, box, () => clock.now);
  const row = (clientId: string) =>
    database.db
      .selectFrom('clients')
      .select(['client_secret_sealed', 'previous_secret_sealed', 'previous_secret_expires_at', 'secret_rotated_at', 'updated_at'])
      .where('client_id', '=', clientId)
      .executeTakeFirstOrThrow();

  it('rotates: a new sealed secret, the replaced one sealed as previous until now + grace, returned only until then', async () => {
    clock.now = NOW;
    await store().create({ clientId: 'svc', redirectUris: [], grantTypes: ['client_credentials'], clientSecret: 'first-secret-0123456789' });
    clock.now = NOW + 1000;
    const rotated = await store().rotateSecret('svc', 60_000);
    expect(rotated).toEqual({ clientId: 'svc', clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), previousSecretExpiresAt: NOW + 61_000 });
    const raw = await row('svc');
    expect(raw.client_secret_sealed).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    expect(raw.previous_secret_sealed).toMatch(/^v2\.[A-Za-z0-9_-]{8}\./);
    expect(raw.previous_secret_sealed).not.toContain('first-secret');
    expect(box.open(raw.client_secret_sealed!)).toBe(rotated.clientSecret);
    expect(box.open(raw.previous_secret_sealed!)).toBe('first-secret-0123456789');
    expect({ expires: Number(raw.previous_secret_expires_at), rotated: Number(raw.secret_rotated_at), updated: Number(raw.updated_at) }).toEqual({
      expires: NOW + 61_000,
      rotated: NOW + 1000,
      updated: NOW + 1000,
    });
    expect(await store().find('svc')).toMatchObject({
      clientSecret: rotated.clientSecret,
      previousClientSecret: 'first-secret-0123456789',
      previousSecretExpiresAt: NOW + 61_000,
      secretRotatedAt: NOW + 1000,
      updatedAt: NOW + 1000,
    });
    expect(toOidcClientMetadata((await store().find('svc'))!)).toMatchObject({ client_secret: rotated.clientSecret, previous_client_secret: 'first-secret-0123456789', previous_client_secret_expires_at_ms: NOW + 61_000 });
    clock.now = NOW + 61_000 - 1;
    expect((await store().find('svc'))!.previousClientSecret).toBe('first-secret-0123456789');
    clock.now = NOW + 61_000;
    const after = (await store().find('svc'))!;
    expect(after).not.toHaveProperty('previousClientSecret');
    expect(after).not.toHaveProperty('previousSecretExpiresAt');
    expect(toOidcClientMetadata(after)).not.toHaveProperty('previous_client_secret');
    expect(after.clientSecret).toBe(rotated.clientSecret);
  });

  it('a rotation during a grace period keeps only the secret it replaced; grace 0 keeps none', async () => {
    clock.now = NOW;
    const second = (await store().find('svc'))!.clientSecret!;
    const third = await store().rotateSecret('svc', 3_600_000);
    expect(await store().find('svc')).toMatchObject({ clientSecret: third.clientSecret, previousClientSecret: second, previousSecretExpiresAt: NOW + 3_600_000 });
    const fourth = await store().rotateSecret('svc', 0);
    expect(fourth).toEqual({ clientId: 'svc', clientSecret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(await row('svc')).toMatchObject({ previous_secret_sealed: null, previous_secret_expires_at: null });
    expect(await store().find('svc')).not.toHaveProperty('previousClientSecret');
  });

  it('refuses to rotate an unknown or a public client', async () => {
    await store().create({ clientId: 'spa', redirectUris: ['https://spa.example/cb'], public: true });
    await expectClientError(store().rotateSecret('spa', 1000), 'public_client', 'client "spa" is public: it has no secret to rotate');
    await expectClientError(store().rotateSecret('ghost', 1000), 'unknown_client', 'unknown client "ghost"');
    expect(await row('spa')).toEqual({ client_secret_sealed: null, previous_secret_sealed: null, previous_secret_expires_at: null, secret_rotated_at: null, updated_at: null });
  });

  it('updates the given fields, keeps the others, and checks the whole client with the rules of create()', async () => {
    clock.now = NOW + 5000;
    await store().create({ clientId: 'web', redirectUris: ['https://web.example/cb'], postLogoutRedirectUris: ['https://web.example/bye'], name: 'Web', authMethod: 'client_secret_post' });
    const secret = (await store().find('web'))!.clientSecret;
    const updated = await store().update('web', { redirectUris: ['https://web.example/cb2', 'https://web.example/cb2'], name: ' Web Two ' });
    expect(updated).toEqual({
      clientId: 'web',
      clientSecret: secret,
      redirectUris: ['https://web.example/cb2'],
      postLogoutRedirectUris: ['https://web.example/bye'],
      public: false,
      tokenEndpointAuthMethod: 'client_secret_post',
      grantTypes: ['authorization_code', 'refresh_token'],
      name: 'Web Two',
      createdAt: NOW + 5000,
      updatedAt: NOW + 5000,
    });
    expect(await store().update('web', { postLogoutRedirectUris: [], grantTypes: ['client_credentials'], redirectUris: [] })).toMatchObject({
      redirectUris: [],
      postLogoutRedirectUris: [],
      grantTypes: ['client_credentials'],
      name: 'Web Two',
    });
    await expectClientError(store().update('web', { grantTypes: ['authorization_code'] }), 'invalid_redirect_uri', 'at least one redirect URI is required for the authorization_code grant');
    await expectClientError(store().update('web', { redirectUris: ['http://web.example/cb'] }), 'invalid_redirect_uri', 'redirect URI "http://web.example/cb" must use https; http is allowed only for localhost and 127.0.0.1');
    await expectClientError(store().update('web', { postLogoutRedirectUris: ['https://web.example/#x'] }), 'invalid_redirect_uri', 'redirect URI "https://web.example/#x" must not contain a fragment');
    await expectClientError(store().update('web', { grantTypes: ['password'] }), 'invalid_input', 'grant type "password" is not supported (use authorization_code, refresh_token, client_credentials, implicit, urn:ietf:params:oauth:grant-type:token-exchange, urn:ietf:params:oauth:grant-type:device_code)');
    await expectClientError(store().update('web', { grantTypes: [] }), 'invalid_input', 'a client needs at least one grant type');
    await expectClientError(store().update('web', { name: '' }), 'invalid_input', 'client name must be 1-128 characters without control characters');
    await expectClientError(store().update('spa', { grantTypes: ['client_credentials'] }), 'invalid_input', 'a public client cannot use the client_credentials grant');
    await expectClientError(store().update('ghost', { name: 'x' }), 'unknown_client', 'unknown client "ghost"');
    const fieldOf = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => (e as ClientRegistryError).field);
    expect(await fieldOf(store().update('web', { redirectUris: ['/cb'] }))).toBe('redirect_uris');
    expect(await fieldOf(store().update('web', { postLogoutRedirectUris: ['/bye'] }))).toBe('post_logout_redirect_uris');
    expect(await fieldOf(store().update('web', { grantTypes: ['password'] }))).toBe('grant_types');
    expect(await fieldOf(store().update('web', { name: '\u0007' }))).toBe('name');
    expect(await fieldOf(store().create({ clientId: 'bad id', redirectUris: [] }))).toBe('client_id');
    expect(await fieldOf(store().update('ghost', { name: 'x' }))).toBeUndefined();
    expect(await store().find('web')).toMatchObject({ grantTypes: ['client_credentials'], redirectUris: [], name: 'Web Two' });
  });

  it('lists one keyset page after a client id', async () => {
    expect((await store().list()).map((c) => c.clientId)).toEqual(['spa', 'svc', 'web']);
    expect((await store().list({ limit: 2 })).map((c) => c.clientId)).toEqual(['spa', 'svc']);
    expect((await store().list({ after: 'spa', limit: 2 })).map((c) => c.clientId)).toEqual(['svc', 'web']);
    expect((await store().list({ after: 'web', limit: 2 })).map((c) => c.clientId)).toEqual([]);
  });
});

describe.each(TEST_ENGINES)('client store: logo_uri (migration 022) on %s', (engine) => {
  const database = useAuthDatabase(engine);
  const store = (): ClientStore => createClientStore(database.db, box, () => NOW);
  const column = async (clientId: string) => (await database.db.selectFrom('clients').select('logo_uri').where('client_id', '=', clientId).executeTakeFirstOrThrow()).logo_uri;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (e: unknown) => ({ code: (e as ClientRegistryError).code, field: (e as ClientRegistryError).field, message: (e as ClientRegistryError).message }),
    );

  it('has no logo by default (column null, nothing in the record or the oidc-provider metadata)', async () => {
    await store().create({ clientId: 'plain-logo', redirectUris: ['https://plain.example/cb'] });
    const found = (await store().find('plain-logo'))!;
    expect(found).not.toHaveProperty('logoUri');
    expect(await column('plain-logo')).toBeNull();
    expect(toOidcClientMetadata(found)).not.toHaveProperty('logo_uri');
  });

  it('stores a logo, maps it to logo_uri, changes it and removes it with null', async () => {
    await store().create({ clientId: 'branded', redirectUris: ['https://branded.example/cb'], logoUri: 'https://cdn.branded.example/logo.png?v=2' });
    expect(await store().find('branded')).toMatchObject({ logoUri: 'https://cdn.branded.example/logo.png?v=2' });
    expect(await column('branded')).toBe('https://cdn.branded.example/logo.png?v=2');
    expect(toOidcClientMetadata((await store().find('branded'))!)).toMatchObject({ logo_uri: 'https://cdn.branded.example/logo.png?v=2' });
    // Another change keeps the logo.
    expect(await store().update('branded', { name: 'Branded' })).toMatchObject({ name: 'Branded', logoUri: 'https://cdn.branded.example/logo.png?v=2' });
    expect(await store().update('branded', { logoUri: 'http://127.0.0.1:8080/logo.svg' })).toMatchObject({ logoUri: 'http://127.0.0.1:8080/logo.svg' });
    const removed = await store().update('branded', { logoUri: null });
    expect(removed).not.toHaveProperty('logoUri');
    expect(await column('branded')).toBeNull();
    await store().create({ clientId: 'local-logo', redirectUris: ['http://localhost:3000/cb'], logoUri: 'http://localhost:3000/logo.png' });
    expect(await store().find('local-logo')).toMatchObject({ logoUri: 'http://localhost:3000/logo.png' });
  });

  it.each([
    ['/logo.png', 'logo_uri "/logo.png" is not an absolute URL'],
    ['http://cdn.example/logo.png', 'logo_uri "http://cdn.example/logo.png" must use https; http is allowed only for localhost and 127.0.0.1'],
    ['data:image/png;base64,AAAA', 'logo_uri "data:image/png;base64,AAAA" must use https; http is allowed only for localhost and 127.0.0.1'],
    ['javascript:alert(1)', 'logo_uri "javascript:alert(1)" must use https; http is allowed only for localhost and 127.0.0.1'],
    ['https://cdn.example/logo.png#top', 'logo_uri "https://cdn.example/logo.png#top" must not contain a fragment'],
    ['https://user:pw@cdn.example/logo.png', 'logo_uri "https://user:pw@cdn.example/logo.png" must not contain credentials'],
    // The URL parser keeps `;` and `'` in a host: its origin would add a directive to the consent page's CSP.
    ["https://cdn.example;script-src*/logo.png", `logo_uri "https://cdn.example;script-src*/logo.png" must name its host by a DNS name or an IP address`],
    ["https://a'unsafe-inline'/logo.png", `logo_uri "https://a'unsafe-inline'/logo.png" must name its host by a DNS name or an IP address`],
    [`https://cdn.example/${'a'.repeat(2030)}`, 'logo_uri must be at most 2048 characters'],
  ])('refuses %s on create and update (invalid_input, field logo_uri)', async (logoUri, message) => {
    const expected = { code: 'invalid_input', field: 'logo_uri', message };
    expect(await refusal(store().create({ clientId: 'bad-logo', redirectUris: ['https://bad.example/cb'], logoUri }))).toEqual(expected);
    expect(await store().find('bad-logo')).toBeUndefined();
    await store().create({ clientId: 'good-logo', redirectUris: ['https://good.example/cb'], logoUri: 'https://good.example/logo.png' });
    expect(await refusal(store().update('good-logo', { logoUri }))).toEqual(expected);
    expect(await column('good-logo')).toBe('https://good.example/logo.png');
    await store().remove('good-logo');
  });

  it('takes a logo of exactly 2048 characters', async () => {
    const logoUri = `https://cdn.example/${'a'.repeat(2048 - 'https://cdn.example/'.length)}`;
    expect(logoUri).toHaveLength(2048);
    await store().create({ clientId: 'long-logo', redirectUris: ['https://long.example/cb'], logoUri });
    expect(await column('long-logo')).toBe(logoUri);
  });
});
