/**
 * The authorization server's public origin is its configured issuer, whatever the request says.
 * oidc-provider builds the endpoints of discovery, `jwks_uri`, the resume URL after sign-in, the
 * logout confirmation form and the DPoP `htu` it expects from `ctx.href`, that is from the Host
 * header (or X-Forwarded-Host with TRUST_PROXY, which nginx fills with the client's own Host).
 * Rules, applied first on every request the provider sees:
 * - every URL built from the request starts with the issuer's origin (`ctx.href`, `ctx.URL`),
 *   scheme included;
 * - `Host` is set to the issuer's host and `X-Forwarded-Host` removed, on the Node request too,
 *   so contexts oidc-provider builds later from the same request (interactionDetails,
 *   interactionFinished) see the issuer as well;
 * - an absolute-form request target (`GET http://other.example/x HTTP/1.1`) is reduced to its
 *   path and query;
 * - the request's scheme is left alone: `ctx.secure` (Secure cookies) still follows the
 *   connection or, with TRUST_PROXY, X-Forwarded-Proto.
 * A request naming another host is served, not refused: nothing it names is echoed, and load
 * balancers and probes reach instances by address (the configured hostname wins, as in
 * Keycloak's hostname v2 with a full URL).
 */
import type Koa from 'koa';
import type { Context, Next } from 'koa';

const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * `app` is the Koa application the middleware is mounted on (oidc-provider's Provider is one itself; its `.app` getter is deprecated):
 * `href` and `URL` are replaced once on its request prototype, which every context it creates
 * inherits (those oidc-provider creates later from the same request included). They are never
 * defined on a request's own object, which would give every request object new hidden classes
 * (bench/README.md, "Token path").
 */
export function pinPublicOrigin(issuer: string, app: Pick<Koa, 'request'>) {
  const { origin, host } = new URL(issuer);
  // Koa builds href (and URL) from the request's protocol and host; the issuer's origin replaces both.
  // (ctx.origin is the Origin request header in Koa 3, and stays so.)
  Object.defineProperty(app.request, 'href', {
    get(this: Koa.Request) {
      return `${origin}${this.originalUrl}`;
    },
    configurable: true,
  });
  Object.defineProperty(app.request, 'URL', {
    get(this: Koa.Request) {
      return new URL(`${origin}${this.originalUrl}`);
    },
    configurable: true,
  });
  return async function pinnedOrigin(ctx: Context, next: Next): Promise<void> {
    if (ABSOLUTE_FORM.test(ctx.originalUrl)) {
      const target = URL.parse(ctx.originalUrl);
      const originForm = target ? `${target.pathname}${target.search}` : '/';
      ctx.url = originForm;
      ctx.originalUrl = originForm;
      ctx.request.originalUrl = originForm;
    }
    const headers = ctx.req.headers;
    headers.host = host;
    if (headers['x-forwarded-host'] !== undefined) delete headers['x-forwarded-host'];
    await next();
  };
}
