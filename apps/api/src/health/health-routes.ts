/**
 * Liveness and readiness. `/healthz` answers 200 while the process serves requests.
 * `/readyz` answers 200 only when every readiness check passes (app.ts lists them: the database
 * answers, and the authorization server's keys (JWT mode) or introspection endpoint
 * (introspection mode) were loaded); otherwise 503 naming each check `ok` or `failing`.
 * Neither needs a token, and neither reveals more than ok/failing per check.
 */
import Router from '@koa/router';
import { API_ROUTES } from '@gatehouse/contracts';
import { livenessHandler, readinessHandler, type ReadinessChecks } from '@gatehouse/metrics';
import { methodNotAllowed } from '../errors/api-error.ts';
import type { ApiState } from '../http/state.ts';

export function healthRoutes(checks: ReadinessChecks): Router<ApiState> {
  const router = new Router<ApiState>();
  router.get(API_ROUTES.health, livenessHandler());
  router.get(API_ROUTES.ready, readinessHandler(checks));
  for (const path of [API_ROUTES.health, API_ROUTES.ready]) {
    router.all(path, (ctx) => {
      throw methodNotAllowed(ctx.method, ['GET', 'HEAD']);
    });
  }
  return router;
}
