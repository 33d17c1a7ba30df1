/**
 * Headers of a deprecated version: `Deprecation` (RFC 9745, `@<epoch seconds>`), `Sunset`
 * (RFC 8594, an HTTP-date) and a `Link` with rel="deprecation" (and rel="sunset") to the
 * policy page, or to the OpenAPI document when the file names none.
 */
import type { Deprecation } from '../collections/collection-config.ts';

export function deprecationHeaders(deprecated: Deprecation, openapiUrl: string): { deprecation: string; sunset?: string; links: string[] } {
  const link = deprecated.link ?? openapiUrl;
  const links = [`<${link}>; rel="deprecation"; type="${deprecated.link ? 'text/html' : 'application/json'}"`];
  if (deprecated.sunset && deprecated.link) links.push(`<${deprecated.link}>; rel="sunset"; type="text/html"`);
  return {
    deprecation: `@${Math.floor(deprecated.since.getTime() / 1000)}`,
    ...(deprecated.sunset ? { sunset: deprecated.sunset.toUTCString() } : {}),
    links,
  };
}
