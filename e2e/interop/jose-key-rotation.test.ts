/**
 * jose's `createRemoteJWKSet` (what most Node resource servers verify JWTs with) across a signing
 * key rotation done by the operator (`authctl keys rotate`), with jose's defaults: a token of the
 * retired key keeps verifying, and a token of the new key makes the set fetch the JWKS again,
 * unless it fetched less than `cooldownDuration` (30 s) ago. The clock jose reads (`Date`) is moved
 * past that cooldown instead of waiting for it.
 */
import { createRemoteJWKSet, customFetch, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { addClient, API_AUDIENCE, authctl, interopStack, type RegisteredClient } from './support/interop-stack.ts';

const stack = interopStack();
let service: RegisteredClient;
let jwksFetches = 0;

beforeAll(async () => {
  service = await addClient(stack, 'jose-service', ['--grant', 'client_credentials']);
});

afterEach(() => {
  vi.useRealTimers();
});

async function clientCredentialsToken(): Promise<string> {
  const response = await fetch(`${stack.authUrl}/oauth2/v1/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${service.client_id}:${service.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'movies:read' }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

const verifyOptions = { issuer: stack.authUrl, audience: API_AUDIENCE, typ: 'at+jwt', algorithms: ['RS256'] };

describe('jose 6.2.17 createRemoteJWKSet across `authctl keys rotate`', () => {
  it('old tokens keep verifying; a new key\'s token verifies after one refetch, once the cooldown has passed', async () => {
    // Default options; the fetch is counted on its way.
    const jwks = createRemoteJWKSet(new URL(`${stack.authUrl}/oauth2/v1/keys`), {
      [customFetch]: (...args: Parameters<typeof fetch>) => {
        jwksFetches += 1;
        return fetch(...args);
      },
    });
    const before = await clientCredentialsToken();
    const oldKid = decodeProtectedHeader(before).kid;
    expect((await jwtVerify(before, jwks, verifyOptions)).payload).toMatchObject({ client_id: service.client_id, scope: 'movies:read' });
    expect(jwksFetches).toBe(1);

    const rotated = JSON.parse(await authctl(stack, ['keys', 'rotate', '--json'])) as { kid: string; retired: string[] };
    expect(rotated.kid).not.toBe(oldKid);
    expect(rotated.retired).toEqual([oldKid]);
    // The server reads the new key set within KEY_CHECK_INTERVAL_MS (5 s).
    let after = await clientCredentialsToken();
    for (const deadline = Date.now() + 8_000; decodeProtectedHeader(after).kid !== rotated.kid && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await clientCredentialsToken();
    }
    expect(decodeProtectedHeader(after).kid).toBe(rotated.kid);

    // Within 30 s of its last fetch the set does not fetch again: the new kid is unknown to it.
    await expect(jwtVerify(after, jwks, verifyOptions)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    expect(jwksFetches).toBe(1);

    // Past the cooldown, the unknown kid makes it fetch once and the token verifies.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31_000 });
    expect((await jwtVerify(after, jwks, verifyOptions)).payload).toMatchObject({ client_id: service.client_id });
    expect(jwksFetches).toBe(2);
    // The retired key is still published: the earlier token still verifies, with no further fetch.
    expect((await jwtVerify(before, jwks, verifyOptions)).protectedHeader.kid).toBe(oldKid);
    expect(jwksFetches).toBe(2);
  });
});
