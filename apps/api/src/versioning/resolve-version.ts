/**
 * Which API version a request is served as. Rules:
 * - the schemes are the path (`/api/v<n>/…`, `/v<n>/…`, `/rest/api/<v<n>|n>/…`), the header
 *   `API-Version: v<n>`, the query `?version=<n>` and the media type
 *   `Accept: application/vnd.gatehouse.v<n>+json|+xml`; each accepts `v<n>` or `<n>`;
 * - none given means the lowest configured version (v1 with the shipped file);
 * - a value that is not a version, or a version not configured, is a 400 listing the supported ones;
 * - two schemes naming different versions are a 400 naming both.
 */
import { ApiError } from '../errors/api-error.ts';
import type { VersionSpec } from '../collections/collection-config.ts';

export type VersionScheme = 'path' | 'header' | 'query' | 'media type';

export interface VersionClaim {
  readonly scheme: VersionScheme;
  readonly value: string;
}

/** The claims of one request, in the order the schemes are compared: path, header, query, media type. */
export function versionClaims(sources: { path?: string; header?: string; query?: readonly string[]; mediaType?: string }): VersionClaim[] {
  const claims: VersionClaim[] = [];
  if (sources.path !== undefined) claims.push({ scheme: 'path', value: sources.path });
  if (sources.header !== undefined && sources.header !== '') claims.push({ scheme: 'header', value: sources.header });
  for (const value of sources.query ?? []) claims.push({ scheme: 'query', value });
  if (sources.mediaType !== undefined) claims.push({ scheme: 'media type', value: sources.mediaType });
  return claims;
}

export const formatVersion = (version: number): string => `v${version}`;

function parseVersion(value: string): number | undefined {
  const match = /^v?([1-9][0-9]{0,3})$/i.exec(value.trim());
  return match ? Number(match[1]) : undefined;
}

export function resolveVersion(claims: readonly VersionClaim[], versions: readonly VersionSpec[]): VersionSpec {
  // Only an error names the supported versions: most requests never build the list.
  const supported = () => versions.map((v) => formatVersion(v.version));
  const unsupported = (claim: VersionClaim): ApiError =>
    new ApiError(400, 'unsupported_version', 'Bad Request', {
      detail: `unsupported API version "${claim.value}" (${claim.scheme}); supported versions: ${supported().join(', ')}`,
      extensions: { supported: supported() },
    });
  let chosen: { spec: VersionSpec; claim: VersionClaim } | undefined;
  for (const claim of claims) {
    const number = parseVersion(claim.value);
    const spec = number === undefined ? undefined : versions.find((v) => v.version === number);
    if (!spec) throw unsupported(claim);
    if (chosen && chosen.spec.version !== spec.version) {
      throw new ApiError(400, 'version_conflict', 'Bad Request', {
        detail: `the request names two versions: ${formatVersion(chosen.spec.version)} (${chosen.claim.scheme}) and ${formatVersion(spec.version)} (${claim.scheme})`,
        extensions: { supported: supported() },
      });
    }
    chosen ??= { spec, claim };
  }
  return chosen?.spec ?? versions[0]!;
}
