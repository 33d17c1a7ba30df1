import type { Context } from 'koa';
import { audit } from '../logging/logger.ts';
import { readSession } from '../sessions/session-data.ts';
import type { RouteDeps } from './deps.ts';

/** Ends the session whose refresh was refused and sends the browser to log in again. */
export async function loginAgain(ctx: Context, deps: RouteDeps): Promise<void> {
  const session = readSession(ctx.session);
  audit(deps.logger, 'login.failure', { sub: session?.user.sub, reason: 'refresh_refused' });
  ctx.session = null;
  await deps.startLogin(ctx, { returnTo: '/' });
}
