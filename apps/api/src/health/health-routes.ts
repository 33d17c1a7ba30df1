/**
 * Liveness and readiness. `/healthz` answers 200 while the process serves requests.
 * `/readyz` answers 200 only once the database answers and the authorization server's keys
 * (JWT mode) or introspection endpoint (introspection mode) were loaded; otherwise 503 naming
 * what is missing. Neither needs a token, and neither reveals more than ok/failing per check.
 */
import Router from '@koa/router';
import { API_ROUTES } from '@gatehouse/contracts';
import { methodNotAllowed } from '../errors/api-error.ts';
import type { ApiState } from '../http/state.ts';

export function healthRoutes(checks: { database: () => Promise<void>; tokenValidation: () => Promise<boolean> }): Router<ApiState> {
  const router = new Router<ApiState>();
  router.get(API_ROUTES.health, (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get(API_ROUTES.ready, async (ctx) => {
    const [database, keys] = await Promise.all([
      checks.database().then(
        () => true,
        () => false,
      ),
      checks.tokenValidation().catch(() => false),
    ]);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = database && keys ? 200 : 503;
    ctx.body = { status: database && keys ? 'ready' : 'not_ready', checks: { database: database ? 'ok' : 'failing', authorizationServer: keys ? 'ok' : 'failing' } };
  });
  for (const path of [API_ROUTES.health, API_ROUTES.ready]) {
    router.all(path, (ctx) => {
      throw methodNotAllowed(ctx.method, ['GET', 'HEAD']);
    });
  }
  return router;
}
