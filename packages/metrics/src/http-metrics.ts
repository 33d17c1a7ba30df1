/**
 * Request metrics of a Koa app:
 * - `http_requests_total{method,route,status}` counts answered requests;
 * - `http_request_duration_seconds{method,route,status}` is a histogram of the time to answer.
 * Rules: `route` comes from the app's {@link RouteNamer} (a pattern, never the raw path);
 * `method` is one of the standard methods or `other`; `status` is the status sent, or what Koa
 * will send for an error that escapes (its `status` when 4xx/5xx, else 500). A middleware that
 * hands the raw response to another handler (`ctx.respond = false`) is measured by
 * `ctx.res.statusCode`. Method and route are those the request arrived with, even when a handler
 * rewrites them to run another route internally. Place it outermost so every answer is counted.
 */
import type { Context, Next } from 'koa';
import type { Registry } from 'prom-client';
import { registerRequestFamilies, type RequestSeries } from './request-series.ts';
import type { RouteNamer } from './route-table.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const LABELS = ['method', 'route', 'status'] as const;
/** Seconds; a login step costs one argon2 verification (~50–200 ms), so the middle buckets are dense. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Options for {@link httpMetrics}. */
export interface HttpMetricsOptions {
  readonly registry: Registry;
  readonly route: RouteNamer;
  /** Monotonic milliseconds (default `performance.now`). */
  readonly now?: () => number;
}

function statusOfError(error: unknown): number {
  const status = (error as { status?: unknown; statusCode?: unknown } | null)?.status ?? (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/** Records one answered request; the same series the middleware writes. */
export interface HttpMetricsRecorder {
  /** `method` as the request arrived (normalised here), `route` from the app's namer, `seconds` to answer. */
  record(method: string, route: string, status: number, seconds: number): void;
}

/** Registers the request metrics on `registry` (once per registry) and returns their recorder. */
export function httpMetricsRecorder(registry: Registry): HttpMetricsRecorder {
  const families = registerRequestFamilies({
    registry,
    counter: { name: 'http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.' },
    histogram: { name: 'http_request_duration_seconds', help: 'Time to answer an HTTP request, by method, route pattern and status.', buckets: DURATION_BUCKETS },
    labelNames: LABELS,
  });
  // One series per label set, found by method, then route, then status: no key is built and no
  // label object is hashed per request. The sets are few (methods × route patterns × statuses).
  const byMethod = new Map<string, Map<string, Map<number, RequestSeries>>>();
  return {
    record(method, route, status, seconds) {
      const known = METHODS.has(method) ? method : 'other';
      let byRoute = byMethod.get(known);
      if (!byRoute) byMethod.set(known, (byRoute = new Map()));
      let byStatus = byRoute.get(route);
      if (!byStatus) byRoute.set(route, (byStatus = new Map()));
      let series = byStatus.get(status);
      if (!series) byStatus.set(status, (series = families.series({ method: known, route, status: String(status) })));
      series.observe(seconds);
    },
  };
}

/**
 * Returns the middleware that records the request metrics, on the recorder given (an app that
 * also answers some requests outside Koa shares it) or on one registered on `registry`.
 */
export function httpMetrics(options: HttpMetricsOptions & { readonly recorder?: HttpMetricsRecorder }): (ctx: Context, next: Next) => Promise<void> {
  const now = options.now ?? (() => performance.now());
  const recorder = options.recorder ?? httpMetricsRecorder(options.registry);

  return async function httpMetricsMiddleware(ctx: Context, next: Next): Promise<void> {
    const started = now();
    // Taken before the request runs: a handler may rewrite the URL and method of the underlying
    // request to run another route internally (the auth server resumes an authorization that way).
    const method = ctx.method;
    const route = options.route(ctx.path);
    let status: number | undefined;
    try {
      await next();
    } catch (error) {
      status = statusOfError(error);
      throw error;
    } finally {
      recorder.record(method, route, status ?? (ctx.respond === false ? ctx.res.statusCode : ctx.status), (now() - started) / 1000);
    }
  };
}
