import { describe, expect, it } from 'vitest';
import { createMetricsRegistry, registerDatabasePoolMetrics, type PoolStats } from '../src/index.ts';

describe('db_pool_connections', () => {
  it('reads the pool at every scrape, one series per state', async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    let stats: PoolStats = { total: 3, idle: 1, waiting: 0 };
    registerDatabasePoolMetrics(registry, { poolStats: () => stats });
    expect(await registry.metrics()).toContain(
      ['db_pool_connections{state="total"} 3', 'db_pool_connections{state="idle"} 1', 'db_pool_connections{state="waiting"} 0'].join('\n'),
    );
    stats = { total: 10, idle: 0, waiting: 4 };
    expect(await registry.metrics()).toContain(
      ['db_pool_connections{state="total"} 10', 'db_pool_connections{state="idle"} 0', 'db_pool_connections{state="waiting"} 4'].join('\n'),
    );
  });

  it('exports no series for an engine without a pool', async () => {
    const registry = createMetricsRegistry({ processMetrics: false });
    registerDatabasePoolMetrics(registry, { poolStats: () => undefined });
    const text = await registry.metrics();
    expect(text).toContain('# TYPE db_pool_connections gauge');
    expect(text).not.toMatch(/^db_pool_connections\{/m);
  });
});
