/**
 * Starts a Server-Sent Events response on a Koa context. The stream is written directly (Koa
 * does not pipe it), so a client going away ends it quietly instead of surfacing as a pipeline
 * error; the socket never times out, proxies are told not to buffer (X-Accel-Buffering), and
 * nothing is cached. Writes and end after the client left are no-ops.
 */
import type { Context } from 'koa';

export interface EventStream {
  write(chunk: string): void;
  end(): void;
  /** Called once when the client goes away (or the stream ended). */
  onClose(listener: () => void): void;
}

export function openEventStream(ctx: Context): EventStream {
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.status = 200;
  ctx.respond = false;
  const res = ctx.res;
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
    'X-Content-Type-Options': 'nosniff',
  });
  return {
    write(chunk) {
      if (!res.writableEnded && !res.destroyed) res.write(chunk);
    },
    end() {
      if (!res.writableEnded) res.end();
    },
    onClose(listener) {
      res.on('close', listener);
    },
  };
}
