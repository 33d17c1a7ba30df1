import { describe, expect, it } from 'vitest';
import { answerMessage, enrollMessage, freshTimestamp, listMessage, MAX_SKEW_MS, parsePublicKey, verifySignature } from '../../src/devices/signed-request.ts';
import { newKeyPair, publicJwk, signWith } from '../support/push.ts';

describe('signed authenticator requests', () => {
  it('names the purpose in every message', () => {
    expect(enrollMessage('C0DE')).toBe('gatehouse-authenticator-v1.enroll.C0DE');
    expect(listMessage('dev', '123', 'n0nce')).toBe('gatehouse-authenticator-v1.list.dev.123.n0nce');
    expect(answerMessage('tx', 'approve', '42', 'dev')).toBe('gatehouse-authenticator-v1.answer.tx.approve.42.dev');
  });

  it('verifies a WebCrypto P-256 signature of exactly that message with exactly that key', async () => {
    const pair = await newKeyPair();
    const jwk = (await parsePublicKey(await publicJwk(pair)))!;
    const signature = await signWith(pair.privateKey, answerMessage('tx', 'approve', '42', 'dev'));
    expect(await verifySignature(jwk, answerMessage('tx', 'approve', '42', 'dev'), signature)).toBe(true);
    expect(await verifySignature(jwk, answerMessage('tx', 'approve', '43', 'dev'), signature)).toBe(false);
    expect(await verifySignature(jwk, answerMessage('tx', 'deny', '42', 'dev'), signature)).toBe(false);
    const other = (await parsePublicKey(await publicJwk(await newKeyPair())))!;
    expect(await verifySignature(other, answerMessage('tx', 'approve', '42', 'dev'), signature)).toBe(false);
    expect(await verifySignature(jwk, answerMessage('tx', 'approve', '42', 'dev'), `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`)).toBe(false);
    expect(await verifySignature(jwk, 'x', 'not base64url!')).toBe(false);
  });

  it('accepts only P-256 public JWKs whose point is on the curve, and keeps only their public members', async () => {
    const jwk = await publicJwk(await newKeyPair());
    expect(await parsePublicKey({ ...jwk, alg: 'ES256', use: 'sig' })).toEqual({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y });
    expect(await parsePublicKey({ ...jwk, d: 'secret' })).toBeUndefined();
    expect(await parsePublicKey({ ...jwk, crv: 'P-384' })).toBeUndefined();
    expect(await parsePublicKey({ ...jwk, kty: 'RSA' })).toBeUndefined();
    expect(await parsePublicKey({ ...jwk, y: jwk.x })).toBeUndefined();
    expect(await parsePublicKey('{}')).toBeUndefined();
    expect(await parsePublicKey(null)).toBeUndefined();
  });

  it('accepts listing timestamps within the allowed skew only', () => {
    const now = 1_790_000_000_000;
    expect(freshTimestamp(String(now - MAX_SKEW_MS), now)).toBe(true);
    expect(freshTimestamp(String(now + MAX_SKEW_MS), now)).toBe(true);
    expect(freshTimestamp(String(now - MAX_SKEW_MS - 1), now)).toBe(false);
    expect(freshTimestamp(String(now + MAX_SKEW_MS + 1), now)).toBe(false);
    expect(freshTimestamp('1e12', now)).toBe(false);
    expect(freshTimestamp('', now)).toBe(false);
  });
});
