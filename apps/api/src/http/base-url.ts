/**
 * The scheme and authority of absolute URLs in responses (`Location`, `Link`, the OpenAPI
 * server). With TRUST_PROXY, Koa reads them from `X-Forwarded-Proto` and `X-Forwarded-Host`
 * (first value), so a gateway that removed TLS still gets https links; without it, from the
 * connection and `Host`. A host that is not a plain host[:port] is replaced by `localhost`
 * rather than echoed into a header.
 */
import type { ApiContext } from './state.ts';

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

export function baseUrl(ctx: ApiContext): string {
  const protocol = ctx.protocol === 'https' ? 'https' : 'http';
  const host = HOST.test(ctx.host) ? ctx.host : 'localhost';
  return `${protocol}://${host}`;
}
