export { gracefulShutdown, shutdownOnSignals } from './graceful-shutdown.ts';
export type { GracefulShutdown, GracefulShutdownOptions, ShutdownLogger } from './graceful-shutdown.ts';
export { releaseStartupMemory, releaseStartupMemoryLater } from './release-startup-memory.ts';
export { keepTickObjectShape, keptTickObject } from './keep-tick-shape.ts';
export { sizeThreadPool, threadPoolSizeFor } from './thread-pool.ts';
export { prepareServerProcess } from './prepare-server-process.ts';
export { periodicTasks, runOnTimer } from './periodic-tasks.ts';
export type { PeriodicTask, PeriodicTasks, Timers } from './periodic-tasks.ts';
