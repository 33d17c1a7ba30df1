/**
 * The outermost middleware of the API. Rules:
 * - an {@link ApiError} becomes an RFC 9457 problem document with its status, stable `code`,
 *   title, detail, field errors and extension members, plus its headers; its `type` is the
 *   code's documentation page, `<API_PUBLIC_URL>/problems/<code>` (problem-catalog.ts), and its
 *   `instance` the request path (relative: never the request's host);
 * - the document takes the representation the client accepts (problem+json, problem+xml or
 *   an HTML page); a client that accepts none of them gets problem+json;
 * - an unreachable database (a restart, a dropped connection) is 503 `database_unavailable` with
 *   Retry-After, logged as a warning without a stack;
 * - anything else is logged with its stack at error level and answered with a generic 500
 *   `server_error` carrying only the request id; no stack trace or internal message ever reaches the wire;
 * - a 404 that nothing answered is turned into a problem document as well.
 */
import type { Next } from 'koa';
import type { Logger } from '@gatehouse/logging';
import { isDatabaseUnavailable } from '@gatehouse/db';
import { problemToHtml } from '../representations/html.ts';
import { negotiateProblem, PROBLEM_TYPES } from '../representations/negotiate.ts';
import { problemToXml } from '../representations/xml.ts';
import type { ApiContext } from '../http/state.ts';
import { ApiError, notFound } from './api-error.ts';
import { problemTypeUri } from './problem-catalog.ts';

function toApiError(error: unknown, ctx: ApiContext, logger: Logger): ApiError {
  if (error instanceof ApiError && error.expose) return error;
  // Koa and Node raise errors with a status for things like malformed URLs.
  const status = (error as { status?: unknown } | null)?.status;
  if (!(error instanceof ApiError) && typeof status === 'number' && status >= 400 && status < 500) {
    return new ApiError(status, status === 404 ? 'not_found' : 'invalid_request', status === 404 ? 'Not Found' : 'Bad Request', {
      detail: 'the request could not be understood',
    });
  }
  if (isDatabaseUnavailable(error)) {
    logger.warn({ event: 'database.unavailable', request_id: ctx.state.requestId, reason: (error as Error).message }, 'database unavailable');
    return new ApiError(503, 'database_unavailable', 'Service Unavailable', {
      detail: 'the database cannot be reached right now; try again shortly',
      headers: { 'Retry-After': '5' },
    });
  }
  logger.error({ event: 'unexpected_error', request_id: ctx.state.requestId, err: error }, 'unexpected error');
  return new ApiError(500, 'server_error', 'Internal Server Error', {
    detail: `an unexpected error occurred; quote request id ${ctx.state.requestId}`,
  });
}

export function errorHandler(logger: Logger, options: { publicUrl: string }) {
  return async function errorHandlerMiddleware(ctx: ApiContext, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw notFound(`nothing is served at ${ctx.path}`);
    } catch (caught) {
      const error = toApiError(caught, ctx, logger);
      const problem: Record<string, unknown> & { title: string; status: number } = {
        type: problemTypeUri(options.publicUrl, error.code),
        title: error.title,
        status: error.status,
        detail: error.detail,
        code: error.code,
        instance: ctx.path,
        requestId: ctx.state.requestId,
        ...(error.errors ? { errors: error.errors } : {}),
        ...error.extensions,
      };
      for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
      const representation = negotiateProblem(ctx.get('Accept') || undefined);
      ctx.status = error.status;
      ctx.set('Content-Type', representation === 'html' ? 'text/html; charset=utf-8' : representation === 'json' ? PROBLEM_TYPES.json : `${PROBLEM_TYPES.xml}; charset=utf-8`);
      if (representation === 'json') ctx.body = JSON.stringify(problem);
      else if (representation === 'xml') ctx.body = problemToXml(problem);
      // The page's CSP comes from the security headers outside (http/security-headers.ts).
      else ctx.body = problemToHtml(problem);
      if (error.status >= 500) logger.warn({ event: 'server_error', request_id: ctx.state.requestId, error_code: error.code }, 'request failed');
    }
  };
}
