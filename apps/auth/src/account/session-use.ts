/**
 * Records the browser and last use of the SSO session each oidc-provider request shows
 * (sign-in, SSO authorization, logout page): provider middleware that looks at the session
 * after the endpoint ran. Rules:
 * - only a signed-in session that the request did not end is recorded, and only by an answer
 *   below 400 (a refused request changes nothing);
 * - the User-Agent is kept as a short label (views/browser-label.ts), never the raw header;
 * - a failure to record is logged and never fails the request.
 */
import type { Context, Next } from 'koa';
import type { HandlerServices } from '../interactions/deps.ts';
import { browserLabel } from '../views/browser-label.ts';

interface SeenSession {
  uid?: unknown;
  accountId?: unknown;
  destroyed?: unknown;
}

export type SessionUseDeps = Pick<HandlerServices, 'sessionMeta' | 'logger'>;

/** Writes the session's browser, IP and last use; awaited by callers that show the list next. */
export async function recordSessionUse(ctx: Context, deps: SessionUseDeps, session: { uid: string; accountId: string }): Promise<void> {
  try {
    await deps.sessionMeta.touch({ sessionUid: session.uid, accountId: session.accountId, browser: browserLabel(ctx.get('user-agent')), ip: ctx.ip });
  } catch (error) {
    deps.logger.warn({ err: error, event: 'session_meta.failed' }, 'session use not recorded');
  }
}

export function sessionUse(deps: SessionUseDeps) {
  return async function recordUse(ctx: Context, next: Next): Promise<void> {
    await next();
    if (ctx.status >= 400) return;
    const session = (ctx as Context & { oidc?: { session?: SeenSession } }).oidc?.session;
    if (!session || session.destroyed || typeof session.accountId !== 'string' || typeof session.uid !== 'string') return;
    await recordSessionUse(ctx, deps, { uid: session.uid, accountId: session.accountId });
  };
}
