/**
 * The message the account page shows after a form: a post answers 303 to the section page the
 * action belongs to, and that page shows the message at the top, once (post/redirect/get, so a
 * reload does not post again and the message is where the page opens). Rules:
 * - the message travels in a signed cookie (`gatehouse.account.flash`, path /account, one
 *   minute; http/signed-cookie.ts): a forged or altered one is ignored;
 * - the next account page reads and clears it;
 * - it never holds a secret (new recovery codes are shown on the answer of the post itself).
 */
import type { Context } from 'koa';
import { ACCOUNT_PATH } from '../clients/account-client.ts';
import { signedCookie } from '../http/signed-cookie.ts';

export interface AccountFlash {
  kind: 'notice' | 'error';
  text: string;
  /** The error code shown under an error. */
  code?: string;
}

const MAX_TEXT = 600;

function parse(value: unknown): AccountFlash | undefined {
  const v = value as Partial<AccountFlash> | null;
  if (!v || (v.kind !== 'notice' && v.kind !== 'error') || typeof v.text !== 'string') return undefined;
  return { kind: v.kind, text: v.text, ...(typeof v.code === 'string' ? { code: v.code } : {}) };
}

const cookie = (keys: readonly string[]) => signedCookie({ name: 'gatehouse.account.flash', path: ACCOUNT_PATH, maxAge: 60_000, keys, parse });

export type FlashDeps = { config: { cookieKeys: readonly string[] } };

/** 303 to `path` with `flash` shown at its top. */
export function redirectWithFlash(ctx: Context, deps: FlashDeps, path: string, flash: AccountFlash): void {
  cookie(deps.config.cookieKeys).set(ctx, { ...flash, text: flash.text.slice(0, MAX_TEXT) });
  ctx.status = 303;
  ctx.redirect(path);
}

export function takeAccountFlash(ctx: Context, deps: FlashDeps): AccountFlash | undefined {
  const c = cookie(deps.config.cookieKeys);
  const flash = c.read(ctx);
  if (ctx.cookies.get('gatehouse.account.flash', { signed: false })) c.clear(ctx);
  return flash;
}
