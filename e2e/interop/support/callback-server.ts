/**
 * The relying party's redirect URI, served for real on a free loopback port: it answers every
 * request 200 with a short text, so the browser lands there and the test reads the callback URL
 * (code, state, iss or the error) from the page, as the library under test would from its request.
 * A browser's redirect to a port nobody listens on fails instead, and playwright's request routing
 * does not see the authorization server's 302s.
 */
import { createServer } from 'node:http';
import { freePort } from '../../support/processes.ts';

export interface CallbackServer {
  /** Origin of the server, e.g. `http://127.0.0.1:12345`. */
  origin: string;
  close(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const port = await freePort();
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    response.end('callback reached');
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
