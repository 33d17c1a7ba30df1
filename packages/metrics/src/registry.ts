import { collectDefaultMetrics, Registry } from 'prom-client';

/** Options for {@link createMetricsRegistry}. */
export interface MetricsRegistryOptions {
  /**
   * Collect prom-client's process metrics (CPU, memory, handles, GC, `nodejs_eventloop_lag_seconds`
   * and its percentiles). Default true. They describe the whole process, so only the registry a
   * process serves should collect them; a test that builds many apps in one process may turn them off.
   */
  readonly processMetrics?: boolean;
}

/**
 * A fresh registry for one app. Every Gatehouse metric is registered on an explicit registry,
 * never on prom-client's global one, so two apps (or two tests) in one process never share series.
 */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): Registry {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}
