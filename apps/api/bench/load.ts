/**
 * A small closed-loop HTTP/1.1 load generator: `connections` keep-alive sockets on loopback,
 * each sending the next GET as soon as the previous response is complete, for `durationMs`.
 * It parses only what it must (status line, Content-Length), so that on a small machine the
 * load generator costs less CPU than the server it measures.
 */
import { connect, type Socket } from 'node:net';

export interface LoadResult {
  readonly requests: number;
  readonly non2xx: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** CPU time of this (load generator) process per request, µs. */
  readonly clientCpuPerRequest: number;
}

export async function runLoad(options: { port: number; path: string; headers: Record<string, string>; connections: number; durationMs: number }): Promise<LoadResult> {
  const head =
    `GET ${options.path} HTTP/1.1\r\nHost: 127.0.0.1:${options.port}\r\nConnection: keep-alive\r\n` +
    Object.entries(options.headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  const request = Buffer.from(head);
  let requests = 0;
  let non2xx = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const deadline = started + options.durationMs;

  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket: Socket = connect(options.port, '127.0.0.1');
      socket.setNoDelay(true);
      let buffer: Buffer = Buffer.alloc(0);
      const send = () => {
        if (performance.now() >= deadline) {
          socket.end();
          resolve();
          return;
        }
        socket.write(request);
      };
      socket.on('connect', send);
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
        for (;;) {
          const end = buffer.indexOf('\r\n\r\n');
          if (end < 0) return;
          const header = buffer.subarray(0, end).toString('latin1');
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(header)?.[1] ?? 0);
          if (buffer.length < end + 4 + length) return;
          const status = Number(header.slice(9, 12));
          if (status < 200 || status > 299) non2xx++;
          requests++;
          buffer = buffer.subarray(end + 4 + length);
          send();
        }
      });
    });

  await Promise.all(Array.from({ length: options.connections }, one));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { requests, non2xx, seconds, perSecond: requests / seconds, clientCpuPerRequest: (cpu.user + cpu.system) / Math.max(1, requests) };
}
