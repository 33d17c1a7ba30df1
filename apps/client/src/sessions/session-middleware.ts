/**
 * koa-session with the server-side store.
 * Rules:
 * - the cookie `<client id>.sid` carries only a random 256-bit key, signed with the app's cookie
 *   keys (a foreign or forged value is ignored: no signature, no session); httpOnly, SameSite=Lax,
 *   Secure when the request is https (directly or behind a trusted proxy);
 * - the data lives in the database (session-store.ts) and is re-read on every request, so a
 *   session deleted there (logout, expiry) is gone at once;
 * - a session past its absolute `expiresAt` is invalid;
 * - an empty session is never saved: pages that only redirect to login set no session cookie;
 * - a cookie whose session is gone from the store (signed out by another app through the
 *   back-channel, expired, deleted) is cleared by the answer that finds it gone, unless that
 *   request filled a new session.
 */
import { randomBytes } from 'node:crypto';
import type Koa from 'koa';
import createSession from 'koa-session';
import type { ClientConfig } from '../config/config.ts';
import type { SessionStore } from './session-store.ts';

/** The part of koa-session's Session object the app uses. */
export interface SessionObject {
  readonly externalKey?: string;
  save(): Promise<void> | undefined;
  regenerate(): Promise<void> | undefined;
  [field: string]: unknown;
}

declare module 'koa' {
  interface ExtendableContext {
    session: SessionObject | null;
  }
}

export function sessionMiddleware(app: Koa, config: ClientConfig, store: SessionStore, clock: () => number): Koa.Middleware {
  const sessions = createSession(
    {
      key: config.cookies.session,
      maxAge: config.sessionTtl * 1000,
      httpOnly: true,
      signed: true,
      sameSite: 'lax',
      rolling: false,
      renew: false,
      autoCommit: true,
      genid: () => randomBytes(32).toString('base64url'),
      valid: (_ctx: unknown, data: Record<string, unknown> | undefined) => typeof data?.expiresAt !== 'number' || data.expiresAt > clock(),
      store: {
        get: async (key: string) => store.get(key),
        set: async (key: string, data: Record<string, unknown>, maxAge: number) => store.set(key, data, maxAge),
        destroy: async (key: string) => store.destroy(key),
      },
    },
    app,
  );
  // Inside koa-session, so the clearing is committed with the answer (koa-session removes a session set to null).
  const clearStale: Koa.Middleware = async (ctx, next) => {
    const presented = ctx.cookies.get(config.cookies.session, { signed: true }) !== undefined;
    await next();
    const session = ctx.session as (SessionObject & { isNew?: boolean; populated?: boolean }) | null;
    if (presented && session?.isNew && !session.populated) ctx.session = null;
  };
  return (ctx, next) => sessions(ctx, () => clearStale(ctx, next));
}
