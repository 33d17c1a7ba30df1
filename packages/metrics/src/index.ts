export { createMetricsRegistry } from './registry.ts';
export type { MetricsRegistryOptions } from './registry.ts';
export { httpMetrics, httpMetricsRecorder } from './http-metrics.ts';
export type { HttpMetricsOptions, HttpMetricsRecorder } from './http-metrics.ts';
export { routeTable, OTHER_ROUTE } from './route-table.ts';
export type { RouteNamer } from './route-table.ts';
export { readBuildInfo, registerBuildInfo } from './build-info.ts';
export { registerDatabasePoolMetrics } from './database-pool-metrics.ts';
export type { PoolStats, PoolStatsSource } from './database-pool-metrics.ts';
export { metricsRequestListener, startMetricsServer, METRICS_PATH } from './metrics-server.ts';
export type { MetricsServer, MetricsServerOptions } from './metrics-server.ts';
export { checkReadiness, DEFAULT_CHECK_TIMEOUT_MS } from './readiness.ts';
export { livenessHandler, readinessHandler } from './health-handlers.ts';
export type { ReadinessCheck, ReadinessChecks, ReadinessReport } from './readiness.ts';
/** prom-client's metric types, so apps define their own metrics on the registry they are given. */
export { Counter, Gauge, Histogram, Registry } from 'prom-client';
