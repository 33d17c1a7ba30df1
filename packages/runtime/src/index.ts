export { gracefulShutdown, shutdownOnSignals } from './graceful-shutdown.ts';
export type { GracefulShutdown, GracefulShutdownOptions, ShutdownLogger } from './graceful-shutdown.ts';
export { releaseStartupMemory, releaseStartupMemoryLater } from './release-startup-memory.ts';
export { keepTickObjectShape, keptTickObject } from './keep-tick-shape.ts';
export { sizeThreadPool, threadPoolSizeFor, MAX_POOL_THREADS, MIN_POOL_THREADS } from './thread-pool.ts';
