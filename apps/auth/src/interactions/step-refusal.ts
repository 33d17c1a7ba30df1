/**
 * A refused sign-in step, or a step's notice, shown after a redirect (post/redirect/get,
 * post-redirect-get.ts). Rules:
 * - a browser's form post (a navigation) that a step refuses on its page (the password, a
 *   passwordless passkey, the second factor, the account selection, the consent) answers 303 to
 *   `/interaction/<uid>`; API clients and JSON keep the page or body with the refusal's status
 *   (docs/spec.md §4.2); so does a post whose answer is the step with a notice ("Start over" of a
 *   TOTP enrollment);
 * - the refusal travels in a signed cookie (`gh_auth_refusal`, path `/interaction`, one minute;
 *   http/signed-cookie.ts): the interaction, the step, the status, code, detail and message, Retry-After,
 *   and the username as read (password step) or the method in use (second factor); a notice
 *   travels as its catalogue key, one of NOTICES; never a password or a code;
 * - the next GET of that interaction's page reads and clears it and shows the refusal once, with
 *   the refusal's status and headers (a notice with 200) (401 for a wrong password or code, 429 with Retry-After), the
 *   same page an API client gets; a reload shows the step with 200 and no message, its form empty
 *   but for what the step itself fills in;
 * - a refusal of another interaction, or of a step the interaction has left, is dropped;
 * - the post counted and audited the refusal; showing it counts nothing.
 */
import type { Context } from 'koa';
import type { AuthConfig } from '../config/config.ts';
import { AuthError, isErrorDetail, type AuthErrorCode } from '../errors/auth-error.ts';
import { signedCookie } from '../http/signed-cookie.ts';
import { interactionPath, redirectsAfterPost, seeOther } from './post-redirect-get.ts';

export type RefusedStep = 'login' | 'mfa' | 'select_account' | 'consent';

const STEPS: readonly unknown[] = ['login', 'mfa', 'select_account', 'consent'] satisfies RefusedStep[];

/** The notices a step shows after a redirect, by catalogue key. */
const NOTICES = ['mfa.newKeyNotice'] as const;
type StepNotice = (typeof NOTICES)[number];

/** What a step's page shows once after a redirect: a refusal, or a notice. */
export interface StepRefusal {
  step: RefusedStep;
  /** Absent for a notice. */
  error?: AuthError;
  notice?: StepNotice;
  /** The username as read (the password step). */
  username?: string;
  /** The method the refused post used (the second factor). */
  using?: string;
}

interface Kept {
  uid: string;
  step: RefusedStep;
  status?: number;
  code?: string;
  detail?: string;
  message?: string;
  retryAfter?: string;
  username?: string;
  using?: string;
  notice?: StepNotice;
}

const MAX_TEXT = 600;
const optional = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

const isNotice = (v: unknown): v is StepNotice => (NOTICES as readonly unknown[]).includes(v);

function parse(value: unknown): Kept | undefined {
  const v = value as Partial<Kept> | null;
  if (!v || typeof v.uid !== 'string' || !STEPS.includes(v.step)) return undefined;
  if (v.notice !== undefined) return isNotice(v.notice) ? { uid: v.uid, step: v.step as RefusedStep, notice: v.notice } : undefined;
  if (typeof v.code !== 'string' || typeof v.message !== 'string') return undefined;
  if (typeof v.status !== 'number' || v.status < 400 || v.status > 499 || !optional(v.retryAfter) || (v.detail !== undefined && !isErrorDetail(v.detail)) || !optional(v.username) || !optional(v.using)) return undefined;
  return v as Kept;
}

const cookie = (keys: readonly string[]) => signedCookie({ name: 'gh_auth_refusal', path: '/interaction', maxAge: 60_000, keys, parse });

export type StepRefusalDeps = { config: Pick<AuthConfig, 'cookieKeys'> };

/**
 * For a browser's form post: keeps the refusal and answers 303 to the interaction's page, and
 * true; false for an API client or JSON, whose answer is the page or body itself.
 */
export function redirectRefusal(ctx: Context, deps: StepRefusalDeps, request: { uid: string; json: boolean }, refusal: StepRefusal & { error: AuthError }): boolean {
  if (!redirectsAfterPost(ctx, request.json)) return false;
  const { error } = refusal;
  const retryAfter = error.headers['Retry-After'];
  cookie(deps.config.cookieKeys).set(ctx, {
    uid: request.uid,
    step: refusal.step,
    status: error.status,
    code: error.code,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    message: error.message.slice(0, MAX_TEXT),
    ...(retryAfter === undefined ? {} : { retryAfter }),
    ...(refusal.username === undefined ? {} : { username: refusal.username.slice(0, MAX_TEXT) }),
    ...(refusal.using === undefined ? {} : { using: refusal.using }),
  });
  seeOther(ctx, interactionPath(request.uid));
  return true;
}

/**
 * For a browser's form post whose answer is its step with a notice: keeps the notice and answers
 * 303 to the interaction's page, and true; false for an API client or JSON.
 */
export function redirectNotice(ctx: Context, deps: StepRefusalDeps, request: { uid: string; json: boolean }, shown: { step: RefusedStep; notice: StepNotice }): boolean {
  if (!redirectsAfterPost(ctx, request.json)) return false;
  cookie(deps.config.cookieKeys).set(ctx, { uid: request.uid, step: shown.step, notice: shown.notice });
  seeOther(ctx, interactionPath(request.uid));
  return true;
}

/** The refusal kept for `uid`'s page, cleared so it is shown once (its page sets its headers). */
export function takeRefusal(ctx: Context, deps: StepRefusalDeps, uid: string): StepRefusal | undefined {
  const jar = cookie(deps.config.cookieKeys);
  if (!ctx.cookies.get('gh_auth_refusal', { signed: false })) return undefined;
  const kept = jar.read(ctx);
  jar.clear(ctx);
  if (!kept || kept.uid !== uid) return undefined;
  if (kept.notice) return { step: kept.step, notice: kept.notice };
  if (kept.status === undefined || kept.code === undefined || kept.message === undefined) return undefined;
  const headers: Record<string, string> = kept.retryAfter === undefined ? {} : { 'Retry-After': kept.retryAfter };
  return {
    step: kept.step,
    // The code was one of ours when the cookie was signed.
    error: new AuthError(kept.status, kept.code as AuthErrorCode, kept.message, { headers, ...(isErrorDetail(kept.detail) ? { detail: kept.detail } : {}) }),
    ...(kept.username === undefined ? {} : { username: kept.username }),
    ...(kept.using === undefined ? {} : { using: kept.using }),
  };
}
