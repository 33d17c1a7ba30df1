/**
 * A small JSON value kept in a cookie the browser cannot forge. Rules:
 * - the value is base64url JSON followed by an HMAC-SHA256 over it, keyed with the first cookie
 *   key and bound to the cookie's purpose (a value of one cookie is never accepted by another);
 *   any of the cookie keys verifies, so a key rotation keeps the cookies already set;
 * - a forged, altered or unreadable cookie reads as absent;
 * - cookies are httpOnly, SameSite=Lax and Secure over https, on the path given.
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'koa';
import { safeEqual } from '../crypto/safe-equal.ts';

export interface SignedCookie<T> {
  set(ctx: Context, value: T): void;
  read(ctx: Context): T | undefined;
  clear(ctx: Context): void;
}

export interface SignedCookieOptions<T> {
  name: string;
  path: string;
  /** Lifetime, milliseconds. */
  maxAge: number;
  keys: readonly string[];
  /** Accepts a parsed value or answers undefined. */
  parse(value: unknown): T | undefined;
}

export function signedCookie<T>(options: SignedCookieOptions<T>): SignedCookie<T> {
  const mac = (key: string, payload: string) => createHmac('sha256', key).update(`${options.name}\0${payload}`).digest('base64url');
  const attributes = (ctx: Context) => ({ path: options.path, httpOnly: true, sameSite: 'lax' as const, secure: ctx.secure, signed: false, overwrite: true });
  return {
    set(ctx, value) {
      const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
      ctx.cookies.set(options.name, `${payload}.${mac(options.keys[0]!, payload)}`, { ...attributes(ctx), maxAge: options.maxAge });
    },
    read(ctx) {
      const raw = ctx.cookies.get(options.name, { signed: false });
      if (!raw) return undefined;
      const [payload, signature] = raw.split('.');
      if (!payload || !signature || !options.keys.some((key) => safeEqual(mac(key, payload), signature))) return undefined;
      try {
        return options.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
      } catch {
        return undefined;
      }
    },
    clear(ctx) {
      ctx.cookies.set(options.name, null, attributes(ctx));
    },
  };
}
