/**
 * Liveness and readiness, answered by Gatehouse's Koa app (app.ts) ahead of the plumbing and oidc-provider.
 * `/healthz` answers 200 while the process serves requests. `/readyz` answers 200 only when
 * every readiness check passes (app.ts lists them), otherwise 503 naming each check `ok` or
 * `failing`. Both are public, uncached JSON and reveal nothing more; other methods get 405.
 * Like every answer of the server they carry `X-Request-Id` (the shared plumbing, http/plumbing.ts,
 * which sets it for everything else, never sees these requests).
 */
import Router from '@koa/router';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { requestId } from '@gatehouse/http';
import { livenessHandler, readinessHandler, type ReadinessChecks } from '@gatehouse/metrics';

export function healthRoutes(checks: ReadinessChecks): Router {
  const router = new Router();
  router.use(requestId);
  router.get(AUTH_ROUTES.health, livenessHandler());
  router.get(AUTH_ROUTES.ready, readinessHandler(checks));
  for (const path of [AUTH_ROUTES.health, AUTH_ROUTES.ready]) {
    router.all(path, (ctx) => {
      ctx.set('Allow', 'GET, HEAD');
      ctx.status = 405;
      ctx.body = { error: 'method_not_allowed', error_description: `${ctx.method} is not allowed here; use GET or HEAD.` };
    });
  }
  return router;
}
