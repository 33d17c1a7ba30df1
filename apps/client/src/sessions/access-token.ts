/**
 * Keeps the session's access token usable.
 * Rules:
 * - a token within `refreshSkew` seconds of its expiry (by the injected clock) is refreshed
 *   with the refresh token before use, without the user noticing;
 * - a token the API rejected (401) is refreshed once, whatever its expiry says;
 * - refreshes of one session are serialised in this process and re-read the stored session
 *   first: refresh tokens rotate, and presenting a used one makes the server revoke the grant,
 *   so two concurrent requests must never refresh with the same token;
 * - the new tokens are written to the store at once, before the lock is released;
 * - a refused refresh ({@link RefreshRefused}) propagates: the caller ends the session.
 */
import type { Context } from 'koa';
import type { Logger } from '../logging/logger.ts';
import { audit } from '../logging/logger.ts';
import type { RelyingParty } from '../oidc/relying-party.ts';
import { RefreshRefused } from '../oidc/relying-party.ts';
import { readSession, type SessionTokens } from './session-data.ts';
import type { SessionStore } from './session-store.ts';

export interface AccessTokens {
  /** A usable access token for the signed-in session of `ctx`. */
  current(ctx: Context): Promise<string>;
  /** A new access token after `rejected` was refused by the API. */
  renew(ctx: Context, rejected: string): Promise<string>;
}

export interface AccessTokenDeps {
  relyingParty: RelyingParty;
  store: SessionStore;
  clock: () => number;
  refreshSkew: number;
  logger: Logger;
}

export function createAccessTokens(deps: AccessTokenDeps): AccessTokens {
  const locks = new Map<string, Promise<unknown>>();
  const fresh = (tokens: SessionTokens): boolean => tokens.expiresAt - deps.refreshSkew * 1000 > deps.clock();

  async function exclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = locks.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(task);
    const tail = run.catch(() => undefined);
    locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (locks.get(key) === tail) locks.delete(key);
    }
  }

  async function refresh(ctx: Context, rejected?: string): Promise<string> {
    const key = ctx.session?.externalKey;
    const session = readSession(ctx.session);
    if (!key || !session) throw new RefreshRefused('no session');
    return exclusive(key, async () => {
      const stored = readSession(await deps.store.get(key));
      if (!stored) throw new RefreshRefused('session ended');
      const latest = stored.tokens;
      if (latest.accessToken !== rejected && fresh(latest)) {
        ctx.session!.tokens = latest;
        return latest.accessToken;
      }
      let tokens: SessionTokens;
      try {
        tokens = await deps.relyingParty.refresh(latest);
      } catch (error) {
        if (error instanceof RefreshRefused) audit(deps.logger, 'token.refresh_refused', { sub: session.user.sub });
        throw error;
      }
      ctx.session!.tokens = tokens;
      await ctx.session!.save();
      audit(deps.logger, 'token.refreshed', { sub: session.user.sub });
      return tokens.accessToken;
    });
  }

  return {
    async current(ctx) {
      const session = readSession(ctx.session);
      if (session && fresh(session.tokens)) return session.tokens.accessToken;
      return refresh(ctx);
    },
    renew: (ctx, rejected) => refresh(ctx, rejected),
  };
}
