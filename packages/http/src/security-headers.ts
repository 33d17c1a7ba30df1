/**
 * Security headers, set in `finally` so that every answer carries them: pages, JSON, and the
 * error pages the app's error handler writes (mount this middleware outside the error handler).
 * Rules:
 * - `Content-Security-Policy` is the app's policy: one string, or built per request (the
 *   authorization server widens form-action from `ctx.state` for the redirect a form leads to;
 *   the API sends its page policy on HTML only: a function answering undefined sends none);
 * - unless `cspOnly`, also `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer` (URLs
 *   carry codes) and `X-Frame-Options: DENY` (for browsers without frame-ancestors);
 * - `Cache-Control: no-store` on the responses `noStore` picks (pages that carry secrets);
 * - `appliesTo` limits all of it to some responses.
 */
import type { DefaultState, Next, ParameterizedContext } from 'koa';

type Ctx<State> = ParameterizedContext<State>;

/** Options for {@link securityHeaders}. */
export interface SecurityHeadersOptions<State = DefaultState> {
  /** The Content-Security-Policy: a fixed string, or built from the finished response (undefined: none). */
  readonly csp: string | ((ctx: Ctx<State>) => string | undefined);
  /** Send only the CSP, not nosniff, no-referrer and DENY (default false). */
  readonly cspOnly?: boolean;
  /** Which responses get `Cache-Control: no-store` (default none). */
  readonly noStore?: (ctx: Ctx<State>) => boolean;
  /** Which responses get the headers at all (default every one). */
  readonly appliesTo?: (ctx: Ctx<State>) => boolean;
}

/** The headers every answer carries unless `cspOnly` (an app answering outside Koa sends these). */
export const BASE_SECURITY_HEADERS: ReadonlyArray<readonly [name: string, value: string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'no-referrer'],
  ['X-Frame-Options', 'DENY'],
];

/**
 * Whether the response is an HTML document: its media type (Content-Type without parameters, any
 * case) is text/html, as `ctx.response.is('html')` answers. Read off the header directly: it runs
 * for every response, and type-is parses the whole header each time.
 */
export function isHtmlResponse(ctx: ParameterizedContext): boolean {
  const type = ctx.response.get('Content-Type');
  if (typeof type !== 'string' || type.length < 9) return false;
  const end = type.indexOf(';');
  return (end === -1 ? type : type.slice(0, end)).trim().toLowerCase() === 'text/html';
}

/** Koa middleware setting the security headers on the way out, whatever happened inside. */
export function securityHeaders<State = DefaultState>(options: SecurityHeadersOptions<State>) {
  const { csp, cspOnly = false, noStore, appliesTo } = options;
  return async function securityHeadersMiddleware(ctx: Ctx<State>, next: Next): Promise<void> {
    try {
      await next();
    } finally {
      if (!appliesTo || appliesTo(ctx)) {
        const policy = typeof csp === 'string' ? csp : csp(ctx);
        if (policy !== undefined) ctx.set('Content-Security-Policy', policy);
        if (!cspOnly) for (const [name, value] of BASE_SECURITY_HEADERS) ctx.set(name, value);
        if (noStore?.(ctx)) ctx.set('Cache-Control', 'no-store');
      }
    }
  };
}
