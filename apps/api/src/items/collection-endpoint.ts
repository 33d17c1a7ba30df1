/**
 * The collection endpoints, as an ordered list of checks. The order is deliberate:
 *  1. the path must have one of the shapes of match-path.ts (else 404, unversioned and unauthenticated);
 *  2. `Accept` must name a representation we produce (406);
 *  3. the version schemes must agree on a configured version (400);
 *  4. the access token must be valid (401), before anything about the collections is revealed,
 *     and come with the scheme its binding asks: a DPoP-bound token as DPoP with a valid proof,
 *     any other as Bearer (auth/dpop-binding.ts); a request in the DPoP scheme is answered with
 *     DPoP challenges from here on;
 *  5. the collection must exist (404) and the method suit the path (405 with Allow);
 *  6. the token must hold the collection's read or write scope (403);
 *  7. the operation reads the body (415, 413, 400) and answers.
 * Every answer from step 1 on carries `Vary: Accept, API-Version`; from step 3 on, `API-Version`
 * and, for a deprecated version, `Deprecation`, `Sunset` and `Link`.
 */
import type { Next } from 'koa';
import { API_ROUTES } from '@gatehouse/contracts';
import type { Authenticator } from '../auth/authenticator.ts';
import { accessCredential, type TokenScheme } from '../auth/bearer.ts';
import { inDpopScheme, insufficientScope } from '../auth/challenges.ts';
import type { DpopBinding } from '../auth/dpop-binding.ts';
import type { Principal } from '../auth/principal.ts';
import type { ApiDefinition } from '../collections/collection-config.ts';
import { collectionNotFound, methodNotAllowed, notAcceptable } from '../errors/api-error.ts';
import type { ApiContext } from '../http/state.ts';
import { BASE_TYPES, negotiate } from '../representations/negotiate.ts';
import type { ItemStore } from '../storage/item-store.ts';
import { deprecationHeaders } from '../versioning/deprecation.ts';
import { formatVersion, resolveVersion, versionClaims, type VersionClaim } from '../versioning/resolve-version.ts';
import { createItem, listItems, readItem, removeItem, replaceItem, type Operation } from './handlers.ts';
import { matchPath, type MatchedPath } from './match-path.ts';

const COLLECTION_METHODS: Readonly<Record<string, { operation: Operation; write: boolean }>> = {
  GET: { operation: listItems, write: false },
  HEAD: { operation: listItems, write: false },
  POST: { operation: createItem, write: true },
};
const ITEM_METHODS: Readonly<Record<string, { operation: Operation; write: boolean }>> = {
  GET: { operation: readItem, write: false },
  HEAD: { operation: readItem, write: false },
  PUT: { operation: replaceItem, write: true },
  DELETE: { operation: removeItem, write: true },
};

/** Token validation is always on, except in the benchmark's baseline run. */
export type TokenValidation = 'on' | 'off';

const UNCHECKED: Principal = { subject: undefined, clientId: undefined, scopes: new Set(), groups: [] };

export function collectionEndpoint(options: {
  definition: ApiDefinition;
  store: ItemStore;
  authenticator: Authenticator;
  dpop: DpopBinding;
  tokenValidation: TokenValidation;
  realm: string;
  bodyLimit: number;
  clock: () => number;
  /** The configured public origin (API_PUBLIC_URL), never the request's Host. */
  publicUrl: string;
}) {
  const { definition } = options;
  const available = [
    ...Object.values(BASE_TYPES),
    ...definition.versions.flatMap((v) => [`application/vnd.gatehouse.${formatVersion(v.version)}+json`, `application/vnd.gatehouse.${formatVersion(v.version)}+xml`]),
  ];

  function claimsOf(ctx: ApiContext, match: MatchedPath, mediaTypeVersion: string | undefined): VersionClaim[] {
    // Most requests have no query string: skip parsing one.
    const query = ctx.querystring === '' ? undefined : ctx.query.version;
    return versionClaims({
      path: match.pathVersion,
      header: ctx.get('API-Version'),
      query: query === undefined ? undefined : Array.isArray(query) ? query : [query],
      mediaType: mediaTypeVersion,
    });
  }

  async function authenticate(ctx: ApiContext): Promise<{ principal: Principal; scheme: TokenScheme }> {
    if (options.tokenValidation === 'off') return { principal: UNCHECKED, scheme: 'Bearer' };
    const credential = accessCredential(ctx.get('Authorization') || undefined, ctx.querystring !== '' && ctx.query.access_token !== undefined, options.realm);
    try {
      const principal = await options.authenticator.authenticate(credential.token);
      await options.dpop.check(credential, principal, { method: ctx.method, path: ctx.path, proof: ctx.req.headers.dpop });
      return { principal, scheme: credential.scheme };
    } catch (error) {
      throw credential.scheme === 'DPoP' ? inDpopScheme(error, options.realm) : error;
    }
  }

  return async function collectionEndpointMiddleware(ctx: ApiContext, next: Next): Promise<void> {
    const match = matchPath(ctx.path);
    if (!match) return next();
    if (match.pathVersion === undefined && match.resource === 'openapi.json') return next();
    ctx.set('Vary', 'Accept, API-Version');

    const negotiated = negotiate(ctx.get('Accept') || undefined);
    if (!negotiated) throw notAcceptable(available);
    ctx.state.negotiated = negotiated;

    const version = resolveVersion(claimsOf(ctx, match, negotiated.mediaTypeVersion), definition.versions);
    ctx.state.version = version;
    ctx.set('API-Version', formatVersion(version.version));
    if (version.deprecated) {
      const headers = deprecationHeaders(version.deprecated, `${options.publicUrl}${API_ROUTES.openapi}`);
      ctx.set('Deprecation', headers.deprecation);
      if (headers.sunset) ctx.set('Sunset', headers.sunset);
      for (const link of headers.links) ctx.append('Link', link);
    }

    const { principal, scheme } = await authenticate(ctx);
    ctx.state.principal = principal;

    const collection = definition.collections.get(match.resource);
    if (!collection) throw collectionNotFound(match.resource);
    const methods = match.idSegment === undefined ? COLLECTION_METHODS : ITEM_METHODS;
    const method = methods[ctx.method];
    if (!method) throw methodNotAllowed(ctx.method, Object.keys(methods));

    const scope = method.write ? collection.writeScope : collection.readScope;
    if (options.tokenValidation === 'on' && !principal.scopes.has(scope)) {
      const refusal = insufficientScope(options.realm, scope);
      throw scheme === 'DPoP' ? inDpopScheme(refusal, options.realm) : refusal;
    }

    await method.operation(ctx, {
      collection,
      match,
      version,
      negotiated,
      store: options.store,
      paging: definition.paging,
      bodyLimit: options.bodyLimit,
      clock: options.clock,
      publicUrl: options.publicUrl,
    });
  };
}
