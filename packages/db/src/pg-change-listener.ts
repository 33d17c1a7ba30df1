/**
 * What a process has heard of one PostgreSQL notification channel (LISTEN/NOTIFY), for caches
 * that other processes' commits must invalidate. Rules:
 * - one connection of its own (a pool's connections come and go; a LISTEN lives with its session);
 * - `version()` moves on every notification on the channel, and on every (re)connection;
 * - `version()` is undefined whenever a notification could have been missed: before the first
 *   LISTEN has answered, after the connection failed, and until it listens again. A cache must
 *   reuse nothing then;
 * - a connection that stops answering is treated as failed: a heartbeat query runs every
 *   `heartbeatMs`, and one not answered within `heartbeatMs` drops the connection (a silent
 *   network failure would otherwise keep the cache for as long as TCP takes to notice);
 * - a failed connection is retried every `retryMs` until close();
 * - PostgreSQL sends a notification when the notifying transaction commits, in commit order, to
 *   every session listening then (its own included). Between another process's commit and its
 *   notification here lies a window of the time a notification takes to arrive (well under a
 *   millisecond on one host), in which a cache may still answer with what was there before.
 */
import type pgModule from 'pg';

/** See the rules at the top of this file. */
export interface ChangeListener {
  /** A number naming what was heard: it moves on each notification and reconnection; undefined while not listening. */
  version(): number | undefined;
  /** Resolves when the channel is listened to (at once if it is now); for start-up checks and tests. */
  listening(): Promise<void>;
  /** Stops listening for good and closes the connection. */
  close(): Promise<void>;
}

/** Options of {@link listenForChanges}. */
export interface ChangeListenerOptions {
  /** Wait before connecting again after a failure, ms (default 1000). */
  retryMs?: number;
  /** Interval of the heartbeat query, and how long it may take, ms (default 5000). */
  heartbeatMs?: number;
  /** Longest wait for the connection, ms (default 5000). */
  connectTimeoutMs?: number;
  /** Called once per lost connection (not while retrying), for a log line. */
  onLost?: (error: Error) => void;
  /** Called each time the channel is listened to again after a loss. */
  onListening?: () => void;
}

/** Listens on `channel` of the database at `connectionString` with a connection of its own. */
export function listenForChanges(pg: typeof pgModule, connectionString: string, channel: string, options: ChangeListenerOptions = {}): ChangeListener {
  const retryMs = options.retryMs ?? 1_000;
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  let generation = 0;
  let live = false;
  let closed = false;
  let lostOnce = false;
  let client: pgModule.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let waiters: (() => void)[] = [];

  const lose = (current: pgModule.Client, error: Error) => {
    if (client !== current) return;
    client = undefined;
    live = false;
    clearInterval(heartbeat);
    current.removeAllListeners('notification');
    current.end().catch(() => undefined);
    if (closed) return;
    if (!lostOnce) options.onLost?.(error);
    lostOnce = true;
    retry = setTimeout(connect, retryMs);
    retry.unref();
  };

  function connect(): void {
    if (closed) return;
    const current = new pg.Client({ connectionString, connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000, keepAlive: true });
    client = current;
    current.on('error', (error) => lose(current, error));
    current.on('end', () => lose(current, new Error('connection ended')));
    current.on('notification', (message) => {
      if (message.channel === channel) generation += 1;
    });
    current
      .connect()
      .then(() => current.query(`LISTEN ${current.escapeIdentifier(channel)}`))
      .then(() => {
        if (client !== current) return;
        // Anything may have changed while nobody listened: what was kept before is not reused.
        generation += 1;
        live = true;
        if (lostOnce) options.onListening?.();
        lostOnce = false;
        for (const resolve of waiters) resolve();
        waiters = [];
        heartbeat = setInterval(() => beat(current), heartbeatMs);
        heartbeat.unref();
      })
      .catch((error: unknown) => lose(current, error instanceof Error ? error : new Error(String(error))));
  }

  function beat(current: pgModule.Client): void {
    const timeout = setTimeout(() => lose(current, new Error(`no answer to the heartbeat within ${heartbeatMs} ms`)), heartbeatMs);
    timeout.unref();
    current.query('select 1').then(
      () => clearTimeout(timeout),
      (error: unknown) => {
        clearTimeout(timeout);
        lose(current, error instanceof Error ? error : new Error(String(error)));
      },
    );
  }

  connect();
  return {
    version: () => (live ? generation : undefined),
    listening: () => (live ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      live = false;
      const current = client;
      client = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}
