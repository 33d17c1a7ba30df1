/**
 * The scrape endpoint, on a listener of its own so it is never reachable through the app's port
 * (which may face the internet). Rules:
 * - `GET` and `HEAD /metrics` answer 200 in the Prometheus text format (`registry.contentType`);
 * - another method on /metrics answers 405 with `Allow: GET, HEAD`; any other path 404;
 * - a failing collection answers 500 without details (they stay in the process);
 * - port 0 binds a free port chosen by the system; the handle tells which.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** The path Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/** Options for {@link startMetricsServer}. */
export interface MetricsServerOptions {
  readonly host: string;
  /** 0 lets the system pick a free port. */
  readonly port: number;
  readonly registry: Registry;
}

/** A listening metrics endpoint. */
export interface MetricsServer {
  /** `http://<host>:<port>`, with the port actually bound. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

function answer(res: ServerResponse, status: number, headers: Record<string, string>, body: string, head: boolean): void {
  res.writeHead(status, { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', ...headers });
  res.end(head ? undefined : body);
}

async function serve(registry: Registry, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  const head = req.method === 'HEAD';
  if (path !== METRICS_PATH) return answer(res, 404, { 'Content-Type': 'text/plain; charset=utf-8' }, 'not found\n', head);
  if (req.method !== 'GET' && !head) {
    return answer(res, 405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' }, 'method not allowed\n', false);
  }
  let text: string;
  try {
    text = await registry.metrics();
  } catch {
    return answer(res, 500, { 'Content-Type': 'text/plain; charset=utf-8' }, 'metrics collection failed\n', head);
  }
  answer(res, 200, { 'Content-Type': registry.contentType }, text, head);
}

/** The scrape endpoint's request listener, for a listener its caller binds (packages/runtime run-server.ts). */
export function metricsRequestListener(registry: Registry): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => void serve(registry, req, res);
}

/**
 * Serves `GET /metrics` of `registry` on its own listener. Resolves once listening; rejects with
 * the listen error (e.g. `EADDRINUSE`) when the port cannot be bound.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = createServer(metricsRequestListener(options.registry));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
