import { Gauge, type Registry } from 'prom-client';

/** Connections of a database pool at one moment. */
export interface PoolStats {
  /** Connections open, idle or in use. */
  readonly total: number;
  /** Open connections not running a query. */
  readonly idle: number;
  /** Queries queued for a connection because every one is in use and the pool is full. */
  readonly waiting: number;
}

/** What the pool gauge reads: an open database, or anything else that knows its pool. */
export interface PoolStatsSource {
  /** The pool's numbers now, or undefined when the engine has no pool (SQLite). */
  poolStats(): PoolStats | undefined;
}

/**
 * Registers `db_pool_connections{state="total"|"idle"|"waiting"}`, read from `source` at each
 * scrape. The states are the {@link PoolStats} fields and do not add up: `total` counts idle and
 * busy connections, `waiting` counts queued queries. Without a pool no series is exported.
 */
export function registerDatabasePoolMetrics(registry: Registry, source: PoolStatsSource): void {
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool: open connections (total), idle connections, and queries waiting for a connection.',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const stats = source.poolStats();
      if (!stats) return;
      this.set({ state: 'total' }, stats.total);
      this.set({ state: 'idle' }, stats.idle);
      this.set({ state: 'waiting' }, stats.waiting);
    },
  });
}
