/**
 * The server's request listener (app.ts `handler()`): a request for the mounted provider goes to it
 * directly, not through Gatehouse's own Koa app, whose chain would only pass it on after building
 * a Koa context of its own for it. Rules:
 * - the split is the chain's: a path the chain answers itself (`answeredHere`: its health checks
 *   and its own routes) goes to the chain, every other path to the current provider, as the
 *   chain's hand-over would send it; Koa's `callback()` stays the whole chain, hand-over included;
 * - a request target that is not a plain path (an absolute URL, `*`) goes to the chain, which decides;
 * - a provider request's metrics are the ones the chain's metrics middleware records for it:
 *   the same recorder, the method and route name it arrived with, the status sent, the time taken.
 * Why: building a Koa context and running the chain's first middleware for every token request costs
 * a share of the token endpoint that none of them needs (bench/README.md, "Token path").
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { HttpMetricsRecorder, RouteNamer } from '@gatehouse/metrics';

export interface ProviderFrontDeps {
  /** Gatehouse's Koa chain (its `callback()`). */
  chain: RequestListener;
  /** Whether the chain answers this path itself (the path without its query). */
  answeredHere: (path: string) => boolean;
  /** The current provider's request listener (it changes when the signing keys do). */
  provider: () => (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  recorder: HttpMetricsRecorder;
  route: RouteNamer;
  /** Monotonic milliseconds (default `performance.now`). */
  now?: () => number;
}

/** The path of a request target in origin form (`/path?query`), or undefined for any other form. */
function originFormPath(url: string | undefined): string | undefined {
  if (url === undefined || url.charCodeAt(0) !== 47 /* '/' */) return undefined;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export function providerFront(deps: ProviderFrontDeps): RequestListener {
  const now = deps.now ?? (() => performance.now());
  return (req, res) => {
    const path = originFormPath(req.url);
    if (path === undefined || deps.answeredHere(path)) return deps.chain(req, res);
    const started = now();
    const method = req.method ?? '';
    const route = deps.route(path);
    const record = () => deps.recorder.record(method, route, res.statusCode, (now() - started) / 1000);
    // Koa's listener answers its own errors and never rejects; a rejection would still be recorded.
    deps.provider()(req, res).then(record, record);
  };
}
