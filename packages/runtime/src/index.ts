export { gracefulShutdown, shutdownOnSignals } from './graceful-shutdown.ts';
export type { GracefulShutdown, GracefulShutdownOptions, ShutdownLogger } from './graceful-shutdown.ts';
