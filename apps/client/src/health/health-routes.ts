/**
 * Liveness and readiness. `/healthz` answers 200 while the process serves requests. `/readyz`
 * answers 200 only when every readiness check passes (app.ts lists them: the database answers,
 * the authorization server's discovery document is loaded), otherwise 503 naming each check
 * `ok` or `failing`. Both are public, uncached JSON and reveal nothing more.
 */
import Router from '@koa/router';
import { CLIENT_ROUTES } from '@gatehouse/contracts';
import { livenessHandler, readinessHandler, type ReadinessChecks } from '@gatehouse/metrics';

export function healthRoutes(checks: ReadinessChecks): Router {
  const router = new Router();
  router.get(CLIENT_ROUTES.health, livenessHandler());
  router.get(CLIENT_ROUTES.ready, readinessHandler(checks));
  return router;
}
