/**
 * What a finished sign-out leaves for the pages after it, in one signed, httpOnly, SameSite=Lax
 * cookie of the sign-out's paths (`/oauth2/v1/logout…`; http/signed-cookie.ts, keyed with the
 * cookie keys, so oidc-provider's pages and Gatehouse's own routes read it alike). Rules:
 * - it names the apps back-channel logout told (at most MAX_LISTED_APPS, a name at most
 *   MAX_NAME_LENGTH characters), the app to go back to (its post-logout redirect, state included)
 *   and, until "Sign out everywhere" is used, the signed-out account and a random nonce that the
 *   page's form must echo (the cookie alone never ends anything);
 * - it lives SIGNED_OUT_RECORD_MS, checked against the clock it carries (`exp`), not only the
 *   browser's expiry; a missing, forged, expired or malformed cookie reads as nothing;
 * - it is read as often as the success page is shown (a reload shows the same list) until it
 *   expires or is replaced.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { signedCookie } from '../http/signed-cookie.ts';
import type { SignedOutApp } from '../views/logout-page.ts';

/** The cookie carrying the record from the confirm step to the success page and to "Sign out everywhere". */
export const SIGNED_OUT_COOKIE = 'gh_auth_signed_out';
export const SIGNED_OUT_RECORD_MS = 10 * 60_000;
export const MAX_LISTED_APPS = 20;
const MAX_NAME_LENGTH = 80;

export interface SignedOutRecord {
  apps: SignedOutApp[];
  /** The app that asked for the sign-out and where it wants the browser back. */
  back?: { name: string; uri: string };
  /** Present until "Sign out everywhere" is used: whose other sessions it may end, and the form's nonce. */
  everywhere?: { accountId: string; nonce: string };
  /** After "Sign out everywhere": how many other sessions it ended. */
  endedElsewhere?: number;
  /** Epoch ms after which the record is void. */
  exp: number;
}

export const newNonce = (): string => randomBytes(16).toString('base64url');

/** The record as read back, or undefined when its shape is not a record's. */
function parse(parsed: unknown): SignedOutRecord | undefined {
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const raw = parsed as Record<string, unknown>;
  if (typeof raw.exp !== 'number' || !Array.isArray(raw.apps)) return undefined;
  const apps = raw.apps.flatMap((app: { name?: unknown; confirmed?: unknown }) => (typeof app?.name === 'string' && typeof app.confirmed === 'boolean' ? [{ name: app.name, confirmed: app.confirmed }] : []));
  const record: SignedOutRecord = { apps, exp: raw.exp };
  const back = raw.back as { name?: unknown; uri?: unknown } | undefined;
  if (typeof back?.name === 'string' && typeof back.uri === 'string') record.back = { name: back.name, uri: back.uri };
  const everywhere = raw.everywhere as { accountId?: unknown; nonce?: unknown } | undefined;
  if (typeof everywhere?.accountId === 'string' && typeof everywhere.nonce === 'string') record.everywhere = { accountId: everywhere.accountId, nonce: everywhere.nonce };
  if (typeof raw.endedElsewhere === 'number') record.endedElsewhere = raw.endedElsewhere;
  return record;
}

const cookie = (keys: readonly string[], maxAge: number) => signedCookie({ name: SIGNED_OUT_COOKIE, path: AUTH_ROUTES.logout, maxAge, keys, parse });

export function writeSignedOutRecord(ctx: Context, keys: readonly string[], record: SignedOutRecord, now: number): void {
  const capped: SignedOutRecord = { ...record, apps: record.apps.slice(0, MAX_LISTED_APPS).map((app) => ({ ...app, name: app.name.slice(0, MAX_NAME_LENGTH) })) };
  if (capped.back) capped.back = { ...capped.back, name: capped.back.name.slice(0, MAX_NAME_LENGTH) };
  cookie(keys, Math.max(0, record.exp - now)).set(ctx, capped);
}

export function readSignedOutRecord(ctx: Context, keys: readonly string[], now: number): SignedOutRecord | undefined {
  const record = cookie(keys, 0).read(ctx);
  return record !== undefined && record.exp > now ? record : undefined;
}
