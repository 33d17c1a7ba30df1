/**
 * The two Koa handlers behind every app's `/healthz` and `/readyz`, so the three apps answer
 * alike: `/healthz` is 200 `{"status":"ok"}` while the process serves requests; `/readyz` is
 * 200 when every check passes and 503 otherwise, with the report of {@link checkReadiness}.
 * Both are uncached. Each app mounts them on its own router (and its own 405 answer).
 */
import type { Context } from 'koa';
import { checkReadiness, type ReadinessChecks } from './readiness.ts';

export function livenessHandler() {
  return function liveness(ctx: Context): void {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  };
}

export function readinessHandler(checks: ReadinessChecks) {
  return async function readiness(ctx: Context): Promise<void> {
    const report = await checkReadiness(checks);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = report.status === 'ready' ? 200 : 503;
    ctx.body = report;
  };
}
