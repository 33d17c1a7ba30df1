/**
 * The API's security headers (@gatehouse/http, set in `finally`, mounted outside the error handler
 * so problem pages get them too). Rules: an HTML answer (a collection page or a problem page)
 * carries {@link HTML_CSP}: it loads nothing and runs nothing. JSON and XML answers carry no page
 * policy.
 */
import { isHtmlResponse, securityHeaders } from '@gatehouse/http';
import { HTML_CSP } from '../representations/html.ts';
import type { ApiState } from './state.ts';

export const apiSecurityHeaders = securityHeaders<ApiState>({ csp: HTML_CSP, cspOnly: true, appliesTo: isHtmlResponse });
