/**
 * The one rule deciding whether an answer (a page, an error) is JSON or HTML, for the endpoints
 * that serve both browsers and API clients. JSON when:
 * 1. the response is already JSON (an endpoint that answers JSON, such as oidc-provider's own
 *    API endpoints, keeps doing so for its errors);
 * 2. or the request body is `application/json` (a caller that posts JSON reads JSON);
 * 3. or the `Accept` header prefers JSON over HTML (`ctx.accepts('html', 'json')`: a missing
 *    Accept or `*\/*` picks HTML, the browser's case).
 * HTML otherwise.
 */
import type { ParameterizedContext } from 'koa';

/** The two shapes of an answer. */
export type ResponseFormat = 'json' | 'html';

/** JSON or HTML for this request, by the rule above. */
export function responseFormat(ctx: ParameterizedContext): ResponseFormat {
  if (ctx.response.is('json')) return 'json';
  if (ctx.request.is('application/json')) return 'json';
  return ctx.accepts('html', 'json') === 'json' ? 'json' : 'html';
}
