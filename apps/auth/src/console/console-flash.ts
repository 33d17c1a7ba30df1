/**
 * The message an admin sees after a form: a post answers 303 to the page the admin was on (or
 * the thing just changed), and that page shows the message at the top, once (redirect-after-
 * post, so a reload does not post again). Rules:
 * - the message travels in a cookie (`gatehouse.console.flash`, path /admin, httpOnly,
 *   SameSite=Lax, Secure over https, one minute), HMAC-signed with the cookie keys: a forged or
 *   altered one is ignored;
 * - it is read and cleared by the next console page;
 * - its text is written in the language of the post that left it (the reader's, console-routes.ts);
 * - it never holds a secret (a reset link or a client secret is shown on the answer of the post
 *   itself, never carried by a redirect).
 */
import { createHmac } from 'node:crypto';
import type { Context } from 'koa';
import { safeEqual } from '../crypto/safe-equal.ts';
import { CONSOLE_PATH } from './console-paths.ts';

export interface Flash {
  kind: 'notice' | 'error';
  text: string;
  /** The error code shown under an error. */
  code?: string;
}

const COOKIE = 'gatehouse.console.flash';
const MAX_TEXT = 600;

const mac = (key: string, payload: string) => createHmac('sha256', key).update(`gatehouse-console-flash\0${payload}`).digest('base64url');

export function setFlash(ctx: Context, keys: readonly string[], flash: Flash): void {
  const payload = Buffer.from(JSON.stringify({ ...flash, text: flash.text.slice(0, MAX_TEXT) })).toString('base64url');
  ctx.cookies.set(COOKIE, `${payload}.${mac(keys[0]!, payload)}`, { path: CONSOLE_PATH, httpOnly: true, sameSite: 'lax', secure: ctx.secure, maxAge: 60_000, signed: false, overwrite: true });
}

export function takeFlash(ctx: Context, keys: readonly string[]): Flash | undefined {
  const raw = ctx.cookies.get(COOKIE, { signed: false });
  if (!raw) return undefined;
  ctx.cookies.set(COOKIE, null, { path: CONSOLE_PATH, httpOnly: true, sameSite: 'lax', secure: ctx.secure, signed: false, overwrite: true });
  const [payload, signature] = raw.split('.');
  if (!payload || !signature || !keys.some((key) => safeEqual(mac(key, payload), signature))) return undefined;
  try {
    const value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Flash>;
    if ((value.kind !== 'notice' && value.kind !== 'error') || typeof value.text !== 'string') return undefined;
    return { kind: value.kind, text: value.text, ...(typeof value.code === 'string' ? { code: value.code } : {}) };
  } catch {
    return undefined;
  }
}
