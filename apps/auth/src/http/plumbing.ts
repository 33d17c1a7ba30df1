/**
 * The plumbing every answer of the authorization server goes through, whether Gatehouse's own
 * routes or oidc-provider's endpoints give it (app.ts mounts one copy in front of each; a request
 * passes exactly one). Rules, in this order:
 * - the issuer's origin first (http/public-origin.ts), so every URL built from the request is the
 *   issuer's; `target` is the Koa app the copy is mounted on;
 * - the request id, then the scope holding it (logging/request-scope.ts) for audit events;
 * - the access log, outside everything that can fail, so it sees the status sent;
 * - the security headers, set in `finally` outside the error handler, so error pages carry them;
 * - the error handler last, turning anything thrown below into the contract's error answer.
 */
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { accessLog, requestId } from '@gatehouse/http';
import type { Logger } from '../logging/logger.ts';
import { requestScope } from '../logging/request-scope.ts';
import { pinPublicOrigin } from './public-origin.ts';
import { errorHandler } from './request-context.ts';
import { authSecurityHeaders } from './security-headers.ts';

export function requestPlumbing(issuer: string, target: Pick<Koa, 'request'>, logger: Logger): Middleware[] {
  return [pinPublicOrigin(issuer, target), requestId, requestScope, accessLog(logger), authSecurityHeaders, errorHandler(logger)] as Middleware[];
}
