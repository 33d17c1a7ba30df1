/**
 * The one start-up path of every Gatehouse server process (auth, api, client): each app's
 * `main.ts` names its preload step and its server module, and this does the rest. Rules:
 * - order: prepareServerProcess (thread pool, nextTick shapes) → `preload` → the server module
 *   is imported (`load`, a dynamic import, so none of the app's modules is evaluated before the
 *   preload ran) → what `preload` returned runs → configuration → `start` (logger, database,
 *   app) → the metrics listener → the server's listener → background work and periodic tasks
 *   start → shutdown on SIGTERM/SIGINT;
 * - behind a proxy, the proxy closes an idle pooled connection before the app would (nginx's
 *   upstream keepalive_timeout, 4 s in the template, under Node's keepAliveTimeout, 5 s); a
 *   draining server keeps that order and closes an idle connection only after keepAliveTimeout,
 *   since a POST nginx sends on a connection that closes under it is answered 502 and never
 *   retried; without a proxy (browsers, `pnpm dev`) the drain's 1 s stands;
 * - a failure the operator fixes prints one report from here, `<name>: <message>` (a refused
 *   configuration lists one problem a line), no stack, and the process exits 1: an error whose
 *   stable `code` is one of {@link ONE_LINE_FAILURES} (refused configuration, schema behind,
 *   failed migration, database not reachable in time) or of the module's `oneLineFailures`
 *   (the authorization server's unreadable sealed secrets), and a listener's port in use, not
 *   allowed or not on this host; anything else is a bug and is thrown;
 * - a listener that fails once the module started closes what is bound and awaits the module's
 *   `close` (flush, database), bounded by a timeout, before the exit;
 * - the server answers with the handler its module composed (any fast path in front of the
 *   framework is part of that handler); /metrics has a listener of its own, bound first;
 * - periodic work (key checks, purges) runs on a timer owned here, never on a request
 *   (periodic-tasks.ts); on shutdown the timer stops and background work ends before the
 *   module's `close` (flush, database) runs;
 * - start-up garbage is given back once the server listens (release-startup-memory.ts).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gracefulShutdown, shutdownOnSignals, type GracefulShutdown, type ShutdownLogger } from './graceful-shutdown.ts';
import { runOnTimer, type PeriodicTasks } from './periodic-tasks.ts';
import { prepareServerProcess } from './prepare-server-process.ts';
import { releaseStartupMemoryLater } from './release-startup-memory.ts';

/** The codes of the shared packages' errors that are the operator's to fix (@gatehouse/config, @gatehouse/db). */
export const ONE_LINE_FAILURES: readonly string[] = ['invalid_config', 'schema_behind', 'migration_failed', 'database_unreachable'];

/** A listener's address and the settings that choose it, named in a failure line. */
export interface ListenAddress {
  readonly host: string;
  readonly port: number;
  /** e.g. `AUTH_HOST/AUTH_PORT`. */
  readonly settings: string;
}

/** What a server module's `start` hands over: everything runServer runs, listens on and stops. */
export interface StartedServer {
  readonly logger: ShutdownLogger;
  /** Answers every request of the server's listener. */
  readonly handler: RequestListener;
  readonly listen: ListenAddress;
  /** The /metrics listener: its address and request listener (@gatehouse/metrics metricsRequestListener). */
  readonly metrics: ListenAddress & { readonly handler: RequestListener };
  /** Called once the listener is bound (the "listening" line, a banner). */
  readonly listening?: (server: Server) => void;
  /** Work due on a schedule, run on a timer of its own. */
  readonly periodic?: PeriodicTasks;
  /** Work that runs in the background while the server runs (a feed, a warm-up): started once listening, stopped on shutdown. */
  readonly background?: readonly { start(): void; stop(): void | Promise<void> }[];
  /** Ends open event streams with a reconnect hint. */
  readonly closeStreams?: () => void;
  /**
   * The listener's clients are a reverse proxy's pooled connections (TRUST_PROXY): while draining,
   * an idle one is closed only once it has been idle as long as the server's keepAliveTimeout.
   */
  readonly behindProxy?: boolean;
  /** Last step of shutdown, once no request is in flight: flush, close the database. */
  readonly close: () => Promise<void>;
}

/** What an app's server module exports. */
export interface ServerModule<Config> {
  /** Reads the configuration once; a `ConfigError` is reported by runServer. */
  readConfig(env: NodeJS.ProcessEnv): Config;
  /** How this process's failure lines begin once its configuration is known (default: runServer's `name`). */
  label?(config: Config): string;
  /** Codes of the app's own errors that are the operator's to fix, printed as one line like the shared ones. */
  readonly oneLineFailures?: readonly string[];
  start(config: Config): Promise<StartedServer>;
}

export interface RunServerOptions<Config> {
  /** Begins each failure line (`auth`, `api`, `client`). */
  readonly name: string;
  /**
   * Runs before any of the app's modules is evaluated; what it returns runs right after they are
   * (e.g. a global swapped only while a dependency builds its module-level objects).
   */
  readonly preload?: () => void | (() => void) | Promise<void | (() => void)>;
  /** Imports the server module (a dynamic `import()`, so it is evaluated after `preload`). */
  readonly load: () => Promise<{ readonly server: ServerModule<Config> }>;
  /** Tests only: where failure lines go, how the process exits, where settings come from. */
  readonly env?: NodeJS.ProcessEnv;
  readonly stderr?: (text: string) => void;
  readonly exit?: (code: number) => never;
  readonly signals?: boolean;
  /** How long a start that failed to listen waits for the module's close (default 10 s). */
  readonly closeTimeoutMs?: number;
}

/** A running server, for tests: its listeners and its shutdown. */
export interface RunningServer {
  readonly server: Server;
  readonly metrics: Server;
  readonly shutdown: GracefulShutdown['shutdown'];
}

/** Why a listener could not be bound, in the operator's words; undefined for any other error. */
function listenFailure(error: unknown, address: ListenAddress): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${address.host}:${address.port} (${address.settings})`;
  if (code === 'EADDRINUSE') return `cannot listen on ${where}: the port is in use by another process`;
  if (code === 'EACCES') return `cannot listen on ${where}: not allowed to bind this port (ports below 1024 need privileges)`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${where}: no network interface has this address`;
  return undefined;
}

function bind(server: Server, address: ListenAddress): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** How long a start that failed to listen waits for the module's close before exiting. */
const CLOSE_ON_FAILURE_MS = 10_000;

/** The module's close, waited for at most `ms`; a close that fails or hangs is logged, never thrown. */
async function closeWithin(started: StartedServer, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
    timer.unref();
  });
  try {
    const outcome = await Promise.race([started.close().then(() => 'closed' as const), timedOut]);
    if (outcome === 'timeout') started.logger.warn({ event: 'close_timeout', ms }, 'close did not finish in time');
  } catch (error) {
    started.logger.warn({ event: 'close_failed', err: error }, 'close failed');
  } finally {
    clearTimeout(timer);
  }
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** `http://host:port` of a bound listener, with the port it got. */
function urlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export async function runServer<Config>(options: RunServerOptions<Config>): Promise<RunningServer> {
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let label = options.name;
  let oneLine: readonly string[] = ONE_LINE_FAILURES;
  const fail = (message: string): never => {
    stderr(`${label}: ${message}\n`);
    return exit(1);
  };
  const reported = (error: unknown): never => {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (error instanceof Error && typeof code === 'string' && oneLine.includes(code)) return fail(error.message);
    throw error;
  };

  prepareServerProcess();
  const afterLoad = await options.preload?.();
  const { server: module } = await options.load();
  if (afterLoad) afterLoad();
  oneLine = [...ONE_LINE_FAILURES, ...(module.oneLineFailures ?? [])];

  let started: StartedServer;
  try {
    const config = module.readConfig(options.env ?? process.env);
    label = module.label?.(config) ?? label;
    started = await module.start(config);
  } catch (error) {
    return reported(error);
  }

  // Each listener refuses a port in use, or not allowed, with one line naming its settings; the
  // listeners already bound close and the module's close (flush, database) runs, bounded, first.
  const bound: Server[] = [];
  const listen = async (handler: RequestListener, address: ListenAddress): Promise<Server> => {
    const listener = createServer(handler);
    try {
      await bind(listener, address);
    } catch (error) {
      const message = listenFailure(error, address) ?? `cannot listen on ${address.host}:${address.port} (${address.settings}): ${String(error)}`;
      for (const other of bound) await close(other);
      await closeWithin(started, options.closeTimeoutMs ?? CLOSE_ON_FAILURE_MS);
      return fail(message);
    }
    bound.push(listener);
    return listener;
  };
  // A listener of its own: /metrics is never reachable through the server's port.
  const metrics = await listen(started.metrics.handler, started.metrics);
  started.logger.info({ event: 'metrics_started', url: `${urlOf(metrics, started.metrics.host)}/metrics` }, 'metrics listening');
  const server = await listen(started.handler, started.listen);
  started.listening?.(server);
  // Start-up garbage and a young generation grown by loading: given back once (bench/README.md, "Memory").
  releaseStartupMemoryLater();

  // Key checks and purges run on a timer of their own, never on a request (periodic-tasks.ts).
  const periodic = started.periodic ? runOnTimer(started.periodic) : undefined;
  for (const work of started.background ?? []) work.start();

  const shutdownOptions = {
    servers: [server],
    logger: started.logger,
    ...(started.behindProxy ? { idleCloseMs: server.keepAliveTimeout } : {}),
    ...(started.closeStreams ? { closeStreams: started.closeStreams } : {}),
    cleanup: async () => {
      await periodic?.stop();
      for (const work of started.background ?? []) await work.stop();
      await close(metrics);
      await started.close();
    },
    ...(options.exit ? { exit: options.exit } : {}),
  };
  const { shutdown } = options.signals === false ? gracefulShutdown(shutdownOptions) : shutdownOnSignals(shutdownOptions);
  return { server, metrics, shutdown };
}
