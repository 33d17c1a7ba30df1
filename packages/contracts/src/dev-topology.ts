/**
 * Where each app listens under `pnpm dev`, defined once: every config default, the client
 * launcher and the dev seed read these instead of writing ports and URLs again.
 * Rules:
 * - each app has a port, a public URL on `localhost` with that port, and a metrics port of its own;
 * - app-one and app-two are the two registered dev clients of one relying-party codebase.
 */
const app = <Port extends number, MetricsPort extends number>(port: Port, metricsPort: MetricsPort) =>
  ({ port, url: `http://localhost:${port}` as const, metricsPort }) as const;

export const DEV_TOPOLOGY = {
  auth: app(3000, 9464),
  api: app(4000, 9465),
  'app-one': app(3001, 9466),
  'app-two': app(3002, 9467),
} as const;

/** Ids of the dev relying-party clients, in the order the launcher starts them. */
export const DEV_CLIENT_IDS = ['app-one', 'app-two'] as const;
export type DevClientId = (typeof DEV_CLIENT_IDS)[number];
