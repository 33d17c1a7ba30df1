/**
 * Liveness and readiness. `/healthz` answers 200 while the process serves requests. `/readyz`
 * answers 200 only when every readiness check passes (app.ts lists them: the database answers,
 * the authorization server's discovery document is loaded), otherwise 503 naming each check
 * `ok` or `failing`. Both are public, uncached JSON and reveal nothing more.
 */
import Router from '@koa/router';
import { CLIENT_ROUTES } from '@gatehouse/contracts';
import { checkReadiness, type ReadinessChecks } from '@gatehouse/metrics';

export function healthRoutes(checks: ReadinessChecks): Router {
  const router = new Router();
  router.get(CLIENT_ROUTES.health, (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get(CLIENT_ROUTES.ready, async (ctx) => {
    const report = await checkReadiness(checks);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = report.status === 'ready' ? 200 : 503;
    ctx.body = report;
  });
  return router;
}
