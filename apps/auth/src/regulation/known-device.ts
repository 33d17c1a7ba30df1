/**
 * Known devices: a browser that completed a full sign-in (password and second factor) for an
 * account carries proof of it, so failures made elsewhere cannot lock the user out on it.
 * Rules:
 * - the cookie `gatehouse.device` is HttpOnly, SameSite=Lax, path `/`, Secure when the request is
 *   https (directly or through a trusted proxy), and expires with its newest token, `ttl` seconds
 *   after the sign-in by the injected clock;
 * - it holds up to MAX_TOKENS tokens, newest first (a browser shared by a few accounts), each
 *   `<device id>.<expires at ms>.<mac>`; the mac is HMAC-SHA256 under the first cookie key over
 *   the account id, device id and expiry, and any cookie key verifies (key rotation), compared in
 *   constant time; the account id is not in the cookie;
 * - a token proves the device only for its account and only until it expires; anything else
 *   (forged, expired, another account's, malformed) is ignored, never an error;
 * - each completed sign-in issues a fresh device id for that account (the device's failure
 *   budget starts again) and drops the account's older token and every expired one;
 * - the regulation key names the device by a hash of its id, so the stored key is no token.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { safeEqual } from '../crypto/safe-equal.ts';

export const KNOWN_DEVICE_COOKIE = 'gatehouse.device';
const MAX_TOKENS = 5;
const TOKEN = /^([\w-]{22})\.(\d{1,16})\.([\w-]{43})$/;

export interface KnownDevices {
  /** The device's regulation id (a hash) when this request carries a valid token for the account. */
  recognise(ctx: Context, accountId: string): string | undefined;
  /** Marks this browser as a known device of the account (after a completed sign-in). */
  remember(ctx: Context, accountId: string): void;
}

export interface KnownDevicesDeps {
  /** The cookie keys: the first signs, all verify. */
  keys: readonly string[];
  /** Seconds a device stays known after its last completed sign-in. */
  ttl: number;
  clock: () => number;
}

export function createKnownDevices(deps: KnownDevicesDeps): KnownDevices {
  const { keys, ttl, clock } = deps;
  const mac = (key: string, accountId: string, deviceId: string, expiresAt: string) =>
    createHmac('sha256', key).update(`${accountId}\n${deviceId}\n${expiresAt}`).digest('base64url');

  function tokens(ctx: Context): string[] {
    return (ctx.cookies.get(KNOWN_DEVICE_COOKIE) ?? '').split('~').filter((t) => TOKEN.test(t)).slice(0, MAX_TOKENS);
  }

  /** The token's device id when it is valid for the account now. */
  function verify(token: string, accountId: string, now: number): string | undefined {
    const [, deviceId, expiresAt, tag] = TOKEN.exec(token)!;
    if (Number(expiresAt) <= now) return undefined;
    let ok = false;
    for (const key of keys) ok = safeEqual(mac(key, accountId, deviceId!, expiresAt!), tag!) || ok;
    return ok ? deviceId : undefined;
  }

  return {
    recognise(ctx, accountId) {
      const now = clock();
      for (const token of tokens(ctx)) {
        const deviceId = verify(token, accountId, now);
        if (deviceId) return createHash('sha256').update(deviceId).digest('base64url').slice(0, 22);
      }
      return undefined;
    },

    remember(ctx, accountId) {
      const now = clock();
      const deviceId = randomBytes(16).toString('base64url');
      const expiresAt = String(now + ttl * 1000);
      const fresh = `${deviceId}.${expiresAt}.${mac(keys[0]!, accountId, deviceId, expiresAt)}`;
      const kept = tokens(ctx).filter((t) => Number(TOKEN.exec(t)![2]) > now && !verify(t, accountId, now));
      ctx.cookies.set(KNOWN_DEVICE_COOKIE, [fresh, ...kept].slice(0, MAX_TOKENS).join('~'), {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.secure,
        path: '/',
        expires: new Date(Number(expiresAt)),
        overwrite: true,
      });
    },
  };
}
