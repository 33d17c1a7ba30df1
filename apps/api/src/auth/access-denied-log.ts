/**
 * One audit line for every refused access decision of the API (ASVS 4.0.3 V7.2.2: failed access
 * control decisions are logged; the access log writes 4xx at debug only). Rules:
 * - a 401 (no, bad, expired, revoked or foreign token) or a 403 (a scope missing) that the
 *   request's handlers raise is written as `access.denied` at info, `audit: true`, then passed on
 *   unchanged to the error handler, which answers it;
 * - the line carries request_id, method, path (never the query), status, error_code, the client
 *   address, and the token's client_id and subject when the token itself was accepted (a 403);
 *   never the token, a header or the body.
 * Mount it inside the error handler, where the refusals are still errors.
 */
import type { Next } from 'koa';
import { audit, type Logger } from '@gatehouse/logging';
import { ApiError } from '../errors/api-error.ts';
import type { ApiContext } from '../http/state.ts';

/** The API's audit events. */
type ApiAuditEvent = 'access.denied';

export function accessDeniedLog(logger: Logger) {
  return async function accessDeniedLogMiddleware(ctx: ApiContext, next: Next): Promise<void> {
    try {
      await next();
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        audit<ApiAuditEvent>(logger, 'access.denied', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          status: error.status,
          error_code: error.code,
          ip: ctx.ip,
          client_id: ctx.state.principal?.clientId,
          subject: ctx.state.principal?.subject,
        });
      }
      throw error;
    }
  };
}
