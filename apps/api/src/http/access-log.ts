/**
 * One structured line per request. Rules: the query string is left out (it may carry
 * a refused `access_token`), no header is logged, 5xx at error, 4xx at debug, the rest at info.
 */
import type { Next } from 'koa';
import type { Logger } from 'pino';
import type { ApiContext } from './state.ts';

export function accessLog(logger: Logger, clock: () => number) {
  return async function accessLogMiddleware(ctx: ApiContext, next: Next): Promise<void> {
    const started = clock();
    try {
      await next();
    } finally {
      const status = ctx.status;
      const level = status >= 500 ? 'error' : status >= 400 ? 'debug' : 'info';
      logger[level](
        {
          event: 'http_request',
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status,
          durationMs: clock() - started,
          version: ctx.state.version ? `v${ctx.state.version.version}` : undefined,
          representation: ctx.state.negotiated?.representation,
          clientId: ctx.state.principal?.clientId,
          subject: ctx.state.principal?.subject,
        },
        'request',
      );
    }
  };
}
