import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/** Serves a Koa app on a random loopback port for one test file. */
export async function serve(app: Pick<Koa, 'callback' | 'silent'>): Promise<{ url: string; close(): Promise<void> }> {
  app.silent = true;
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
