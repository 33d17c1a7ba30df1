/**
 * The API's security headers (@gatehouse/http, set in `finally`, mounted outside the error handler
 * so problem pages get them too). Rules:
 * - every answer (JSON, XML, HTML, problems, 204s) carries `X-Content-Type-Options: nosniff`,
 *   `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`: a browser never sniffs an item
 *   into a script or page, never frames an answer, and never sends an API URL on as a referrer;
 * - an HTML answer (a collection page or a problem page) also carries {@link HTML_CSP}: it loads
 *   nothing and runs nothing. JSON and XML answers carry no page policy.
 */
import { isHtmlResponse, securityHeaders } from '@gatehouse/http';
import { HTML_CSP } from '../representations/html.ts';
import type { ApiState } from './state.ts';

export const apiSecurityHeaders = securityHeaders<ApiState>({ csp: (ctx) => (isHtmlResponse(ctx) ? HTML_CSP : undefined) });
