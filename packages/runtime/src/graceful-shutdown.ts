/**
 * Graceful shutdown of one HTTP server process on SIGTERM or SIGINT. Rules:
 * - the listener stops accepting at once; idle keep-alive connections are closed, and every
 *   response still being written carries `Connection: close`, so clients reconnect elsewhere;
 * - long-lived streams (Server-Sent Events) are ended by `closeStreams`, which sends them a
 *   `retry:` hint, so browsers and resource servers reconnect to another instance;
 * - in-flight requests finish, for at most `timeoutMs`; past that the remaining connections are
 *   cut (logged as a warning);
 * - then `cleanup` runs (close the database pool, stop background loops) and the process exits
 *   0, without a stack trace; a second signal while draining changes nothing.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';

export interface ShutdownLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface GracefulShutdownOptions {
  servers: Server[];
  logger: ShutdownLogger;
  /** Ends open event streams with a reconnect hint. */
  closeStreams?: () => void;
  /** Runs once no request is in flight: close pools, stop timers. */
  cleanup?: () => Promise<void>;
  /** Longest wait for in-flight requests, ms (default 10 s). */
  timeoutMs?: number;
  /** Defaults to process.exit. */
  exit?: (code: number) => void;
}

export interface GracefulShutdown {
  /** What a signal does; exposed for tests. Resolves when the process would exit. */
  shutdown(signal: string): Promise<void>;
}

export function gracefulShutdown(options: GracefulShutdownOptions): GracefulShutdown {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let draining: Promise<void> | undefined;

  const open = new Set<ServerResponse>();
  // Sockets that served a response and are waiting for the next request (keep-alive). A socket
  // that was just accepted and has not sent its request yet is not idle in this sense: closing
  // it would cut a request that is on its way (http.Server#close would do exactly that).
  const served = new Set<Socket>();
  // One listener per server and per response, shared by every request (no closure per request:
  // this runs on every request of the API's hottest path; bench/README.md).
  function onResponseFinish(this: ServerResponse): void {
    const socket = this.req.socket;
    if (!socket.destroyed) served.add(socket);
  }
  function onResponseClose(this: ServerResponse): void {
    open.delete(this);
  }
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    open.add(res);
    served.delete(req.socket);
    res.on('finish', onResponseFinish);
    res.on('close', onResponseClose);
  };
  function onSocketClose(this: Socket): void {
    served.delete(this);
  }
  for (const server of options.servers) {
    // First of the request listeners: an app that answers at once (the API's item reads) has
    // already sent its headers when a later listener runs.
    server.prependListener('request', onRequest);
    server.on('connection', (socket: Socket) => socket.on('close', onSocketClose));
  }
  const closeServed = () => {
    for (const socket of served) socket.destroy();
    served.clear();
  };

  // Stop listening without http.Server#close's closeIdleConnections (see above); open
  // connections end on their own once their response, sent with Connection: close, is done.
  const closeServer = (server: Server) =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      net.Server.prototype.close.call(server, () => resolve());
      closeServed();
    });

  async function drain(signal: string): Promise<void> {
    const started = Date.now();
    options.logger.info({ event: 'shutdown.started', signal }, 'shutting down: finishing in-flight requests');
    for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
    options.closeStreams?.();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      for (const server of options.servers) server.closeAllConnections();
    }, timeoutMs);
    // Keep-alive connections that finish a response in the meantime are closed as they go idle.
    const sweep = setInterval(closeServed, 50);
    try {
      await Promise.all(options.servers.map(closeServer));
    } finally {
      clearTimeout(timer);
      clearInterval(sweep);
    }
    if (timedOut) options.logger.warn({ event: 'shutdown.forced', after_ms: timeoutMs }, 'requests still running after the shutdown timeout were cut');
    try {
      await options.cleanup?.();
    } catch (error) {
      options.logger.warn({ event: 'shutdown.cleanup_failed', reason: error instanceof Error ? error.message : String(error) }, 'cleanup failed');
    }
    options.logger.info({ event: 'shutdown.done', ms: Date.now() - started }, 'stopped');
    exit(0);
  }

  const shutdown = (signal: string) => (draining ??= drain(signal));
  return { shutdown };
}

/** Installs {@link gracefulShutdown} on SIGTERM and SIGINT. */
export function shutdownOnSignals(options: GracefulShutdownOptions): GracefulShutdown {
  const handle = gracefulShutdown(options);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void handle.shutdown(signal));
  return handle;
}
