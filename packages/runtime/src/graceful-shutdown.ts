/**
 * Graceful shutdown of one HTTP server process on SIGTERM or SIGINT. Rules:
 * - the listener stops accepting at once (a proxy's new connection is refused, which it retries
 *   on another instance, POST included: nothing was sent);
 * - every response still being written, and every response to a request that arrives on a
 *   kept-alive connection while draining, carries `Connection: close` and is finished, so the
 *   proxy reconnects elsewhere for its next request;
 * - a kept-alive connection is closed only once it has been idle for `idleCloseMs` (1 s) while
 *   draining: closing the instant a response ends would race a request already on its way;
 *   behind a proxy the caller passes the server's keepAliveTimeout, which the proxy's own idle
 *   timeout is below, so the proxy closes first (nginx answers a POST sent on a connection that
 *   closes under it 502, and never retries a POST; run-server.ts);
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
  /** How long a kept-alive connection must sit idle while draining before it is closed, ms (default 1 s). */
  idleCloseMs?: number;
  /** Defaults to process.exit. */
  exit?: (code: number) => void;
}

export interface GracefulShutdown {
  /** What a signal does; exposed for tests. Resolves when the process would exit. */
  shutdown(signal: string): Promise<void>;
}

export function gracefulShutdown(options: GracefulShutdownOptions): GracefulShutdown {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const idleCloseMs = options.idleCloseMs ?? 1_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let draining: Promise<void> | undefined;

  // Each open connection with the last response it was given (none yet: just accepted). At the
  // drain, a connection whose response is finished is idle (kept alive, waiting for its next
  // request) and is closed; one whose response is not finished is answered first; one that has
  // had no request yet is left alone: its request may be on its way, and closing it would cut
  // that request (http.Server#close, through closeIdleConnections, would do exactly that).
  // Why a map set per request and no listener on each response: those listeners and sets are a
  // visible share of a small request (bench/README.md, "API read").
  const current = new Map<Socket, ServerResponse | undefined>();
  // Idle connections as the drain's sweeps saw them: the response that was last and finished,
  // and since when. A new request on the connection replaces its response, so it is not idle.
  const idleSince = new Map<Socket, { res: ServerResponse; since: number }>();
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    current.set(req.socket, res);
  };
  function onSocketClose(this: Socket): void {
    current.delete(this);
    idleSince.delete(this);
  }
  for (const server of options.servers) {
    // First of the request listeners: an app that answers at once (the API's item reads) has
    // already sent its headers when a later listener runs.
    server.prependListener('request', onRequest);
    server.on('connection', (socket: Socket) => {
      current.set(socket, undefined);
      socket.on('close', onSocketClose);
    });
  }
  const closeServed = () => {
    const now = Date.now();
    for (const [socket, res] of current) {
      if (!res?.writableFinished) continue;
      const seen = idleSince.get(socket);
      if (seen?.res !== res) idleSince.set(socket, { res, since: now });
      else if (now - seen.since >= idleCloseMs) socket.destroy();
    }
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
    for (const res of current.values()) if (res && !res.headersSent) res.setHeader('Connection', 'close');
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
