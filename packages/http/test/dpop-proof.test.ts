/**
 * The rules of verifyDpopProof, each with the stable code of its refusal. The API's and userinfo's
 * tests check the same rules on the wire (apps/api/test/auth/dpop-binding.test.ts, apps/auth/test/flow/dpop.test.ts).
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { DpopProofError, verifyDpopProof, type DpopProofExpectation } from '../src/index.ts';

const URL_ = 'https://api.example.com/api/movies/1';
const TOKEN = 'access-token';
const NOW = Date.UTC(2026, 0, 1);

interface Key {
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
  readonly jkt: string;
}

async function newKey(alg = 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

describe('verifyDpopProof', () => {
  let key: Key;
  const seen = new Set<string>();
  let counter = 0;

  beforeAll(async () => {
    key = await newKey();
  });

  const proof = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, signer: Key = key) =>
    new SignJWT({
      htm: 'GET',
      htu: URL_,
      iat: NOW / 1000,
      jti: `jti-${++counter}`,
      ath: createHash('sha256').update(TOKEN).digest('base64url'),
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: signer.jwk, ...header })
      .sign(signer.privateKey);

  const verify = (value: DpopProofExpectation['proof'], overrides: Partial<DpopProofExpectation> = {}) =>
    verifyDpopProof({
      proof: value,
      method: 'GET',
      url: URL_,
      accessToken: TOKEN,
      jkt: key.jkt,
      algorithms: ['ES256', 'EdDSA'],
      now: NOW,
      windowSeconds: 60,
      remember: async (jkt, jti) => !seen.has(`${jkt} ${jti}`) && Boolean(seen.add(`${jkt} ${jti}`)),
      ...overrides,
    });

  const codeOf = async (promise: Promise<unknown>): Promise<string> => {
    try {
      await promise;
      return 'accepted';
    } catch (error) {
      return error instanceof DpopProofError ? error.code : `other: ${String(error)}`;
    }
  };

  it('accepts a valid proof once, and says its jti and iat', async () => {
    const value = await proof({ jti: 'once' });
    await expect(verify(value)).resolves.toEqual({ jti: 'once', iat: NOW / 1000 });
    expect(await codeOf(verify(value))).toBe('replay');
  });

  it('records the jti until the end of the iat window', async () => {
    const recorded: number[] = [];
    await verify(await proof({ iat: NOW / 1000 - 10 }), { remember: async (_jkt, _jti, expiresAt) => Boolean(recorded.push(expiresAt)) });
    expect(recorded).toEqual([NOW - 10_000 + 60_000]);
  });

  const refusals: [string, () => Promise<string | string[] | undefined>, string][] = [
    ['no proof', async () => undefined, 'missing'],
    ['an empty proof', async () => '', 'missing'],
    ['two proofs', async () => [await proof(), await proof()], 'malformed'],
    ['two proofs joined in one header', async () => `${await proof()}, ${await proof()}`, 'malformed'],
    ['not a JWT', async () => 'abc', 'malformed'],
    ['typ JWT', async () => proof({}, { typ: 'JWT' }), 'malformed'],
    ['no jwk', async () => proof({}, { jwk: undefined }), 'malformed'],
    ['a private jwk', async () => proof({}, { jwk: await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey) }), 'malformed'],
    ['an algorithm not allowed', async () => { const k = await newKey('ES384'); return new SignJWT({ htm: 'GET', htu: URL_, iat: NOW / 1000, jti: 'x' }).setProtectedHeader({ alg: 'ES384', typ: 'dpop+jwt', jwk: k.jwk }).sign(k.privateKey); }, 'signature'],
    ['another key than the jwk', async () => { const [h, p] = (await proof()).split('.'); const s = (await proof({}, {}, await newKey())).split('.')[2]; return `${h}.${p}.${s}`; }, 'signature'],
    ['no jti', async () => proof({ jti: undefined }), 'claims'],
    ['a jti of 257 characters', async () => proof({ jti: 'j'.repeat(257) }), 'claims'],
    ['no iat', async () => proof({ iat: undefined }), 'claims'],
    ['another method', async () => proof({ htm: 'POST' }), 'htm'],
    ['another path', async () => proof({ htu: 'https://api.example.com/api/movies/2' }), 'htu'],
    ['another origin', async () => proof({ htu: 'https://evil.example.com/api/movies/1' }), 'htu'],
    ['no htu', async () => proof({ htu: undefined }), 'htu'],
    ['an iat 61 s old', async () => proof({ iat: NOW / 1000 - 61 }), 'iat'],
    ['an iat 61 s ahead', async () => proof({ iat: NOW / 1000 + 61 }), 'iat'],
    ['another token', async () => proof({ ath: createHash('sha256').update('other').digest('base64url') }), 'ath'],
    ['no ath', async () => proof({ ath: undefined }), 'ath'],
    ['a key the token is not bound to', async () => proof({}, {}, await newKey()), 'jkt'],
  ];

  it.each(refusals)('refuses %s', async (_label, make, code) => {
    expect(await codeOf(verify(await make()))).toBe(code);
  });

  it('ignores the query and fragment of htu, and compares normalised URLs', async () => {
    expect(await codeOf(verify(await proof({ htu: 'HTTPS://API.example.com:443/api/movies/1?a=1#x' })))).toBe('accepted');
    expect(await codeOf(verify(await proof(), { url: `${URL_}?limit=5` }))).toBe('accepted');
  });
});
