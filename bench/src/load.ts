/**
 * A small closed-loop HTTP/1.1 load generator: `connections` keep-alive sockets on loopback,
 * each sending its next request as soon as the previous response is complete, until the
 * deadline or until a given number of requests has been sent. Each connection follows a script
 * (a fixed GET, POST then DELETE, a refresh-token chain whose next request depends on the last
 * response, prepared password steps). It parses only what it must (status line,
 * Content-Length, and the body when the script asks for it), so that on a small machine the
 * load generator costs less CPU than the server it measures. Loopback only, bounded by time or
 * by count.
 */
import { connect, type Socket } from 'node:net';

export interface Script {
  /** The next request, as raw bytes. */
  next(): Buffer;
  /** Sees each response; throwing stops the run (a broken refresh chain is a failed bench). */
  onResponse?(status: number, body: Buffer): void;
}

export interface LoadResult {
  readonly requests: number;
  readonly non2xx: number;
  readonly seconds: number;
  readonly perSecond: number;
  /** CPU time of this (load generator) process per request, µs. */
  readonly clientCpuPerRequest: number;
}

export function httpRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Buffer {
  const payload = body === undefined ? undefined : Buffer.from(body);
  const head =
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    (payload ? `Content-Length: ${payload.length}\r\n` : '') +
    '\r\n';
  return payload ? Buffer.concat([Buffer.from(head), payload]) : Buffer.from(head);
}

/** The same request on every connection, over and over. */
export const repeat = (request: Buffer) => (): Script => ({ next: () => request });

export interface LoadOptions {
  readonly port: number;
  readonly connections: number;
  /** Stop sending after this long... */
  readonly durationMs?: number;
  /** ...or once this many requests have been sent, over all connections (at least one of the two). */
  readonly requests?: number;
  readonly script: (index: number) => Script;
  /**
   * A connection the server resets while its request waits unanswered (a server under valgrind
   * outlasting its own keep-alive timeout before it reads the next request) is opened again and
   * the same request sent again. Only for bench:instructions: the suite counts a reset as a failure.
   */
  readonly reconnect?: boolean;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.durationMs === undefined && options.requests === undefined) throw new Error('runLoad needs durationMs or requests');
  let requests = 0;
  let sent = 0;
  let non2xx = 0;
  const started = performance.now();
  const deadline = started + (options.durationMs ?? Infinity);
  const limit = options.requests ?? Infinity;
  const cpuBefore = process.cpuUsage();

  const one = (script: Script): Promise<void> =>
    new Promise((resolve, reject) => {
      let socket: Socket;
      let buffer: Buffer = Buffer.alloc(0);
      /** The request waiting for its answer, if any. */
      let waiting: Buffer | undefined;
      const send = () => {
        if (sent >= limit || performance.now() >= deadline) {
          waiting = undefined;
          socket.end();
          resolve();
          return;
        }
        sent++;
        waiting = script.next();
        socket.write(waiting);
      };
      const open = (first?: Buffer) => {
        socket = connect(options.port, '127.0.0.1');
        socket.setNoDelay(true);
        buffer = Buffer.alloc(0);
        socket.on('connect', () => (first ? socket.write(first) : send()));
        socket.on('error', (error: NodeJS.ErrnoException) => {
          if (options.reconnect && waiting && error.code === 'ECONNRESET') open(waiting);
          else reject(error);
        });
        socket.on('data', onData);
      };
      const onData = (chunk: Buffer) => {
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
          try {
            script.onResponse?.(status, buffer.subarray(end + 4, end + 4 + length));
          } catch (error) {
            socket.destroy();
            reject(error as Error);
            return;
          }
          buffer = buffer.subarray(end + 4 + length);
          waiting = undefined;
          send();
        }
      };
      open();
    });

  await Promise.all(Array.from({ length: options.connections }, (_, i) => one(options.script(i))));
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { requests, non2xx, seconds, perSecond: requests / seconds, clientCpuPerRequest: (cpu.user + cpu.system) / Math.max(1, requests) };
}
