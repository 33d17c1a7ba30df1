import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { gracefulShutdown } from '../src/index.ts';

function slowServer() {
  const pending: Array<() => void> = [];
  const server: Server = createServer((_req, res) => {
    pending.push(() => res.end('done'));
  });
  return { server, release: () => pending.splice(0).forEach((f) => f()), waiting: () => pending.length };
}

const listen = (server: Server) => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((r) => setTimeout(r, 10));
};

describe('gracefulShutdown', () => {
  it('stops accepting, lets the in-flight request finish, ends streams, cleans up, then exits 0', async () => {
    const { server, release, waiting } = slowServer();
    const port = await listen(server);
    const events: string[] = [];
    const logs: string[] = [];
    const logger = { info: (f: Record<string, unknown>) => logs.push(String(f.event)), warn: (f: Record<string, unknown>) => logs.push(String(f.event)) };
    const handle = gracefulShutdown({
      servers: [server],
      logger,
      closeStreams: () => events.push('streams'),
      cleanup: async () => void events.push('cleanup'),
      exit: (code) => events.push(`exit ${code}`),
    });
    const inFlight = fetch(`http://127.0.0.1:${port}/`).then(async (r) => ({ status: r.status, body: await r.text(), connection: r.headers.get('connection') }));
    await until(() => waiting() === 1);
    const done = handle.shutdown('SIGTERM');
    expect(events).toEqual(['streams']);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    release();
    expect(await inFlight).toEqual({ status: 200, body: 'done', connection: 'close' });
    await done;
    expect(events).toEqual(['streams', 'cleanup', 'exit 0']);
    expect(logs).toEqual(['shutdown.started', 'shutdown.done']);
    // A second signal does not start a second drain.
    await handle.shutdown('SIGINT');
    expect(events).toEqual(['streams', 'cleanup', 'exit 0']);
  });

  it('cuts requests still running after the timeout, and still exits 0', async () => {
    const { server, waiting } = slowServer();
    const port = await listen(server);
    const logs: string[] = [];
    const codes: number[] = [];
    const logger = { info: (f: Record<string, unknown>) => logs.push(String(f.event)), warn: (f: Record<string, unknown>) => logs.push(String(f.event)) };
    const handle = gracefulShutdown({ servers: [server], logger, timeoutMs: 100, exit: (code) => codes.push(code) });
    const stuck = fetch(`http://127.0.0.1:${port}/`).then(() => 'answered', () => 'cut');
    await until(() => waiting() === 1);
    await handle.shutdown('SIGTERM');
    expect(await stuck).toBe('cut');
    expect(codes).toEqual([0]);
    expect(logs).toEqual(['shutdown.started', 'shutdown.forced', 'shutdown.done']);
  });

  it('closes a kept-alive connection once it has stayed idle, and answers one whose request is on its way', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listen(server);
    const accepted: Socket[] = [];
    server.on('connection', (socket: Socket) => accepted.push(socket));
    const logs: string[] = [];
    const logger = { info: (f: Record<string, unknown>) => logs.push(String(f.event)), warn: (f: Record<string, unknown>) => logs.push(String(f.event)) };
    const codes: number[] = [];
    const handle = gracefulShutdown({ servers: [server], logger, timeoutMs: 5_000, exit: (code) => codes.push(code) });

    const open = async () => {
      const socket = connect(port, '127.0.0.1');
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      const count = accepted.length;
      await until(() => accepted.length > count);
      return { socket, closed, text: () => Buffer.concat(received).toString('latin1') };
    };
    const request = 'GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n';
    // One connection served a response and waits for its next request; another is open, no request yet.
    const idle = await open();
    idle.socket.write(request);
    await until(() => idle.text().endsWith('ok'));
    const fresh = await open();

    const done = handle.shutdown('SIGTERM');
    await idle.closed;
    expect(idle.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n/);
    fresh.socket.write(request);
    await fresh.closed;
    expect(fresh.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*\r\n\r\nok$/);
    await done;
    expect(codes).toEqual([0]);
    expect(logs).toEqual(['shutdown.started', 'shutdown.done']);
  });

  it('answers a request sent on an idle kept-alive connection as the drain starts, with Connection: close, instead of cutting it', async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => res.end(`got ${body}`));
    });
    const port = await listen(server);
    const logger = { info: () => {}, warn: () => {} };
    const codes: number[] = [];
    const handle = gracefulShutdown({ servers: [server], logger, timeoutMs: 5_000, idleCloseMs: 200, exit: (code) => codes.push(code) });
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const text = () => Buffer.concat(received).toString('latin1');
    const post = (body: string) => `POST / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    socket.write(post('first'));
    await until(() => text().endsWith('got first'));

    // The proxy reuses the connection the moment the drain starts.
    const done = handle.shutdown('SIGTERM');
    await new Promise((r) => setTimeout(r, 60));
    socket.write(post('second'));
    await closed;
    const responses = text().split('HTTP/1.1 ').slice(1);
    expect(responses).toHaveLength(2);
    expect(responses[1]).toMatch(/^200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*\r\n\r\ngot second$/);
    await done;
    expect(codes).toEqual([0]);
  });
});
