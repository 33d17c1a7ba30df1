/**
 * The rules of auth/dpop-binding.ts (and the proof check of @gatehouse/http it runs), one by one,
 * with the proof store on a real database of each engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { DPOP_SIGNING_ALGORITHMS } from '@gatehouse/contracts';
import { migrateToLatest, openDatabase, type Database } from '@gatehouse/db';
import { createTestDatabase, TEST_ENGINES, type TestDatabase } from '@gatehouse/db/testing';
import { createDpopBinding, type DpopBinding } from '../../src/auth/dpop-binding.ts';
import type { AccessCredential } from '../../src/auth/bearer.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { apiMigrations } from '../../src/storage/migrations.ts';
import { createDpopProofStore, type DpopProofStore } from '../../src/storage/dpop-proof-store.ts';
import type { ApiSchema } from '../../src/storage/schema.ts';
import { dpopKey, type DpopKey } from '@gatehouse/auth/testing';

const PUBLIC_URL = 'https://api.example.com';
const URL_ = `${PUBLIC_URL}/api/movies/1`;
const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';
const ALGS = 'ES256 PS256 RS256 Ed25519 EdDSA';

function principal(jkt?: string): Principal {
  return { subject: 'u1', clientId: 'c1', scopes: new Set(['movies:read']), groups: [], ...(jkt ? { jkt } : {}) };
}

async function refusal(promise: Promise<unknown>): Promise<{ status: number; code: string; challenge: string | undefined; detail: string | undefined }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, challenge: error.headers['WWW-Authenticate'], detail: error.detail };
  }
  throw new Error('accepted');
}

const proofChallenge = (description: string) =>
  `DPoP realm="gatehouse-api", error="invalid_dpop_proof", error_description="${description}", algs="${ALGS}"`;

describe.each(TEST_ENGINES)('DPoP binding, proofs recorded on %s', (engine) => {
  let target: TestDatabase;
  let database: Database<ApiSchema>;
  let store: DpopProofStore;
  let binding: DpopBinding;
  let key: DpopKey;
  let now = Date.UTC(2026, 0, 1, 12) as number;
  const nowSeconds = () => Math.floor(now / 1000);
  const dpop: AccessCredential = { scheme: 'DPoP', token: TOKEN };

  beforeAll(async () => {
    target = await createTestDatabase(engine);
    database = openDatabase<ApiSchema>(target.url);
    await migrateToLatest(database.db as Kysely<unknown>, 'api', apiMigrations);
    store = createDpopProofStore(database.db);
    binding = createDpopBinding({ store, clock: () => now, windowSeconds: 60, publicUrl: PUBLIC_URL, realm: 'gatehouse-api' });
    key = await dpopKey();
  });
  afterAll(async () => {
    await database.close();
    await target.drop();
  });

  const check = (proof: string | string[] | undefined, options: { method?: string; path?: string; jkt?: string; credential?: AccessCredential } = {}) =>
    binding.check(options.credential ?? dpop, principal(options.jkt ?? key.jkt), { method: options.method ?? 'GET', path: options.path ?? '/api/movies/1', proof });

  const expectProofRefused = async (promise: Promise<unknown>, description: string) => {
    expect(await refusal(promise)).toEqual({ status: 401, code: 'invalid_dpop_proof', challenge: proofChallenge(description), detail: description });
  };

  it('accepts a bound token with a valid proof, and a bearer token as Bearer', async () => {
    await expect(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() }))).resolves.toBeUndefined();
    // htu is compared without query and fragment, after normalisation (default port, case of the host).
    await expect(check(await key.proof('GET', 'https://API.example.com:443/api/movies/1?x=1#f', { accessToken: TOKEN, iat: nowSeconds() }))).resolves.toBeUndefined();
    await expect(binding.check({ scheme: 'Bearer', token: TOKEN }, principal(), { method: 'GET', path: '/api/movies/1', proof: undefined })).resolves.toBeUndefined();
  });

  it.each(DPOP_SIGNING_ALGORITHMS)('accepts a proof signed with %s, as the authorization server does', async (alg) => {
    const own = await dpopKey(alg);
    await expect(check(await own.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() }), { jkt: own.jkt })).resolves.toBeUndefined();
  });

  it('refuses a bound token sent as Bearer, and an unbound token sent as DPoP', async () => {
    const proof = await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() });
    expect(await refusal(check(proof, { credential: { scheme: 'Bearer', token: TOKEN } }))).toEqual({
      status: 401,
      code: 'invalid_token',
      detail: 'the access token is bound to a DPoP key; send it as DPoP with a DPoP proof',
      challenge: `DPoP realm="gatehouse-api", error="invalid_token", error_description="the access token is bound to a DPoP key; send it as DPoP with a DPoP proof", algs="${ALGS}"`,
    });
    expect(await refusal(binding.check(dpop, principal(), { method: 'GET', path: '/api/movies/1', proof }))).toEqual({
      status: 401,
      code: 'invalid_token',
      detail: 'the access token is not bound to a DPoP key; send it as Bearer',
      challenge: `DPoP realm="gatehouse-api", error="invalid_token", error_description="the access token is not bound to a DPoP key; send it as Bearer", algs="${ALGS}"`,
    });
  });

  it('refuses a missing proof and two proofs', async () => {
    await expectProofRefused(check(undefined), 'a DPoP proof is required with this access token');
    const proof = await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() });
    await expectProofRefused(check(`${proof}, ${proof}`), 'the DPoP header must hold exactly one proof JWT');
    await expectProofRefused(check([proof, proof]), 'the DPoP header must hold exactly one proof JWT');
  });

  it('refuses another method (htm) and another URL (htu)', async () => {
    await expectProofRefused(check(await key.proof('POST', URL_, { accessToken: TOKEN, iat: nowSeconds() })), 'the DPoP proof htm does not match the request method');
    await expectProofRefused(check(await key.proof('get', URL_, { accessToken: TOKEN, iat: nowSeconds() })), 'the DPoP proof htm does not match the request method');
    for (const htu of [`${PUBLIC_URL}/api/movies/2`, 'http://api.example.com/api/movies/1', 'https://api.example.com:8443/api/movies/1', 'not a url']) {
      await expectProofRefused(check(await key.proof('GET', htu, { accessToken: TOKEN, iat: nowSeconds() })), 'the DPoP proof htu does not match the request URL');
    }
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), claims: { htu: 7 } })), 'the DPoP proof htu does not match the request URL');
  });

  it('accepts iat up to the window either side, and refuses it beyond', async () => {
    await expect(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() - 60 }))).resolves.toBeUndefined();
    await expect(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() + 60 }))).resolves.toBeUndefined();
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() - 61 })), 'the DPoP proof iat is outside the accepted window');
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() + 61 })), 'the DPoP proof iat is outside the accepted window');
  });

  it('refuses a proof for another token (ath) or without ath', async () => {
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: `${TOKEN}x`, iat: nowSeconds() })), 'the DPoP proof ath does not match the access token');
    await expectProofRefused(check(await key.proof('GET', URL_, { iat: nowSeconds() })), 'the DPoP proof ath does not match the access token');
  });

  it('refuses a proof by another key than the bound one (jkt)', async () => {
    const other = await dpopKey();
    await expectProofRefused(check(await other.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() })), 'the DPoP proof key is not the key the access token is bound to');
  });

  it('refuses a replayed jti, also once the first use is a minute old, until the window ends', async () => {
    const proof = await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() });
    await expect(check(proof)).resolves.toBeUndefined();
    await expectProofRefused(check(proof), 'the DPoP proof was used before');
    const saved = now;
    try {
      now += 60_000;
      await expectProofRefused(check(proof), 'the DPoP proof was used before');
      // Past the window the record may go: the proof is refused on iat from then on.
      now += 1_000;
      expect(await store.purgeExpired(now)).toBeGreaterThan(0);
      await expectProofRefused(check(proof), 'the DPoP proof iat is outside the accepted window');
    } finally {
      now = saved;
    }
    // The same jti with another key is another proof.
    const other = await dpopKey();
    const jti = 'shared-jti';
    await expect(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), claims: { jti } }))).resolves.toBeUndefined();
    await expect(check(await other.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), claims: { jti } }), { jkt: other.jkt })).resolves.toBeUndefined();
  });

  it('refuses a symmetric or unlisted algorithm, and alg none', async () => {
    const secret = new TextEncoder().encode('a shared secret of thirty-two bytes!!');
    const hmac = await new SignJWT({ htm: 'GET', htu: URL_, jti: 'h1', iat: nowSeconds() })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: Buffer.from(secret).toString('base64url') } as JWK })
      .sign(secret);
    await expectProofRefused(check(hmac), 'the DPoP proof is signed with an algorithm that is not allowed');
    const es512 = await dpopKey('ES512');
    await expectProofRefused(check(await es512.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() }), { jkt: es512.jkt }), 'the DPoP proof is signed with an algorithm that is not allowed');
    const [header, payload] = (await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() })).split('.') as [string, string];
    const none = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(header, 'base64url').toString()), alg: 'none' })).toString('base64url')}.${payload}.`;
    await expectProofRefused(check(`${none}x`), 'the DPoP proof is signed with an algorithm that is not allowed');
  });

  it('refuses a private key in the jwk header, a missing jwk, a wrong typ, a bad signature and missing claims', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const privateJwk = await exportJWK(privateKey);
    await expectProofRefused(
      check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), header: { jwk: privateJwk } })),
      'the DPoP proof is malformed or its jwk header is not a public key',
    );
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), header: { jwk: undefined } })), 'the DPoP proof is malformed or its jwk header is not a public key');
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), header: { typ: 'JWT' } })), 'the DPoP proof must have typ dpop+jwt');
    const other = await dpopKey();
    const [h, p] = (await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() })).split('.') as [string, string];
    const foreignSignature = (await other.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds() })).split('.')[2]!;
    await expectProofRefused(check(`${h}.${p}.${foreignSignature}`), 'the DPoP proof signature is invalid');
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), claims: { jti: '' } })), 'the DPoP proof lacks a valid jti or iat claim');
    await expectProofRefused(check(await key.proof('GET', URL_, { accessToken: TOKEN, iat: nowSeconds(), claims: { jti: 'j'.repeat(257) } })), 'the DPoP proof lacks a valid jti or iat claim');
  });
});
