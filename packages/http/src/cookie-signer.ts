/**
 * Signs and checks cookie values for Koa's signed cookies (`ctx.cookies`, used by koa-session and
 * by oidc-provider), in place of the `keygrip` object Koa builds from a list of keys. Rules:
 * - the signature is the one keygrip makes by default, HMAC-SHA1 of the cookie's `name=value`
 *   in base64url without padding, so cookies keygrip signed keep their sessions;
 * - `sign` uses the first key; `index` answers which key signed a value (0 the current one, a
 *   higher index an older one still accepted during a rotation) or -1;
 * - signatures are compared in constant time (crypto.timingSafeEqual); a digest of the wrong
 *   length is refused without comparing (the length of a signature is no secret);
 * - at least one key, and no empty key.
 * Why: keygrip turns each string key into a new HMAC key and compares with tsscmp, which costs
 * two more HMACs per check, a visible share of the auth server's own CPU in a login.
 * Here each key becomes a KeyObject once.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

const ALGORITHM = 'sha1';

/**
 * What Koa and the `cookies` module call on `app.keys` (keygrip's interface). A class, so
 * oidc-provider's configuration copy (which rebuilds plain objects) keeps it as it is.
 */
export class CookieSigner {
  readonly #secrets: readonly KeyObject[];

  constructor(keys: readonly string[]) {
    if (keys.length === 0 || keys.some((key) => key.length === 0)) throw new Error('cookie keys: at least one, none empty');
    this.#secrets = keys.map((key) => createSecretKey(Buffer.from(key, 'utf8')));
  }

  sign(data: string): string {
    return signWith(this.#secrets[0]!, data);
  }

  verify(data: string, digest: string): boolean {
    return this.index(data, digest) > -1;
  }

  index(data: string, digest: string): number {
    if (typeof digest !== 'string') return -1;
    const given = Buffer.from(digest, 'utf8');
    for (let i = 0; i < this.#secrets.length; i++) {
      const expected = Buffer.from(signWith(this.#secrets[i]!, data), 'utf8');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return i;
    }
    return -1;
  }
}

function signWith(key: KeyObject, data: string): string {
  return createHmac(ALGORITHM, key).update(data).digest('base64url');
}

export function cookieSigner(keys: readonly string[]): CookieSigner {
  return new CookieSigner(keys);
}
