/**
 * The pre-routed path of the most frequent request: an authorized `GET` of one item as JSON. It
 * runs before Koa and answers only when every step of the ordinary path (collection-endpoint.ts)
 * would succeed; the moment one would not, or anything is unusual, it hands the untouched request
 * to the Koa app, which decides with all of its checks and answers. It takes the request when:
 *  - the method is GET, the target is a path without a query string, and there is no body;
 *  - the path has an item shape of match-path.ts, and `Accept` negotiates to JSON (negotiate.ts);
 *  - the version schemes (path, `API-Version`, media type) agree on a version that is not
 *    deprecated (resolve-version.ts);
 *  - the bearer token is one the authenticator can admit at once: verified before and in the
 *    verified-token cache, inside its validity window, not named by the revocation deny-list, and
 *    needing no introspection recheck (`Authenticator.authenticateCached`);
 *  - the collection exists, the token holds its read scope, the id is valid and the item exists.
 * What it sends is what the Koa app sends for the same request: status, headers in the same order,
 * body; and it writes the same request line and request metrics. test/items/fast-read.test.ts
 * compares the two answer for answer.
 * Why: Koa's context, seven middleware and three routers cost more than the read itself; this
 * request is most of an API's traffic (bench/README.md, "API read").
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BASE_SECURITY_HEADERS, isSafeRequestId, logRequest, type AccessLogger } from '@gatehouse/http';
import type { HttpMetricsRecorder } from '@gatehouse/metrics';
import type { Authenticator } from '../auth/authenticator.ts';
import { bearerToken } from '../auth/bearer.ts';
import { parseId } from '../collections/item-validator.ts';
import type { ApiDefinition, VersionSpec } from '../collections/collection-config.ts';
import type { Principal } from '../auth/principal.ts';
import { apiLineFields } from '../http/access-log.ts';
import { jsonContentType } from '../representations/render.ts';
import { negotiate, type Negotiated } from '../representations/negotiate.ts';
import { viewToJson } from '../representations/view.ts';
import type { ItemStore } from '../storage/item-store.ts';
import { formatVersion, resolveVersion, versionClaims } from '../versioning/resolve-version.ts';
import { itemReadView } from './handlers.ts';
import { matchPath, type MatchedPath } from './match-path.ts';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

export interface FastReadOptions {
  readonly definition: ApiDefinition;
  readonly store: ItemStore;
  readonly authenticator: Authenticator;
  readonly realm: string;
  readonly logger: AccessLogger;
  /** Epoch ms, for the request line's duration (the access log's clock). */
  readonly clock: () => number;
  readonly metrics: HttpMetricsRecorder;
  /** The request metrics' route namer (metrics/route-name.ts). */
  readonly routeName: (path: string) => string;
}

/** What the fast path established before the read. */
interface Admitted {
  readonly path: string;
  /** matchPath's answer, remembered per path: the key of the remembered metrics route name. */
  readonly match: MatchedPath;
  readonly collection: string;
  readonly id: number;
  readonly version: VersionSpec;
  readonly negotiated: Negotiated;
  readonly principal: Principal;
}

/** Returns the handler that serves what it can and passes the rest to `fallback` (the Koa app). */
export function fastItemRead(options: FastReadOptions, fallback: RequestHandler): RequestHandler {
  const { definition } = options;
  // The metrics route name of a path shape, worked out once (MatchedPath objects are remembered per path).
  const routeNames = new WeakMap<MatchedPath, string>();
  const routeNameOf = (admitted: Admitted): string => {
    let name = routeNames.get(admitted.match);
    if (name === undefined) routeNames.set(admitted.match, (name = options.routeName(admitted.path)));
    return name;
  };

  /** Every check of the ordinary path, without throwing: undefined means "let Koa decide". */
  function admit(req: IncomingMessage): Admitted | undefined {
    if (req.method !== 'GET') return undefined;
    const path = req.url;
    if (path === undefined || path.charCodeAt(0) !== 47 /* / */ || path.includes('?') || path.includes('#')) return undefined;
    const headers = req.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
    const match = matchPath(path);
    if (match?.idSegment === undefined) return undefined;
    const negotiated = negotiate(headers.accept || undefined);
    if (negotiated?.representation !== 'json') return undefined;
    const apiVersion = headers['api-version'];
    if (Array.isArray(apiVersion)) return undefined;
    let version: VersionSpec;
    let token: string;
    try {
      version = resolveVersion(versionClaims({ path: match.pathVersion, header: apiVersion, mediaType: negotiated.mediaTypeVersion }), definition.versions);
      token = bearerToken(headers.authorization || undefined, false, options.realm);
    } catch {
      return undefined;
    }
    if (version.deprecated) return undefined;
    const principal = options.authenticator.authenticateCached(token);
    if (!principal) return undefined;
    const collection = definition.collections.get(match.resource);
    if (!collection || !principal.scopes.has(collection.readScope)) return undefined;
    const id = parseId(match.idSegment);
    if (id === undefined) return undefined;
    return { path, match, collection: collection.name, id, version, negotiated, principal };
  }

  /** The item's JSON at once (SQLite); undefined when it is not there or the read failed. */
  function readNow(admitted: Admitted, getJsonNow: NonNullable<ItemStore['getJsonNow']>): string | undefined {
    try {
      const json = getJsonNow(admitted.collection, admitted.id);
      // v1 shows a read as an array of one.
      return json === undefined ? undefined : admitted.version.version === 1 ? `[${json}]` : json;
    } catch {
      return undefined;
    }
  }

  /** The item's JSON through a promise (PostgreSQL); undefined when it is not there or the read failed. */
  async function readLater(admitted: Admitted): Promise<string | undefined> {
    try {
      const item = await options.store.get(admitted.collection, admitted.id);
      return item && JSON.stringify(viewToJson(itemReadView(admitted.version, admitted.collection, item)));
    } catch {
      return undefined;
    }
  }

  function send(req: IncomingMessage, res: ServerResponse, admitted: Admitted, body: string, started: number, startedMs: number): void {
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && isSafeRequestId(incoming) ? incoming : randomUUID();
    // The order Koa's path sets them in: request id, negotiation, rendering, then the security headers.
    const headers: string[] = [
      'X-Request-Id',
      requestId,
      'Vary',
      'Accept, API-Version',
      'API-Version',
      formatVersion(admitted.version.version),
      'Content-Type',
      jsonContentType(admitted.negotiated),
      'Content-Length',
      String(Buffer.byteLength(body)),
    ];
    for (const [name, value] of BASE_SECURITY_HEADERS) headers.push(name, value);
    res.writeHead(200, headers);
    res.end(body);
    logRequest(options.logger, { requestId, method: 'GET', path: admitted.path, status: 200, durationMs: options.clock() - startedMs }, apiLineFields(admitted));
    options.metrics.record('GET', routeNameOf(admitted), 200, (performance.now() - started) / 1000);
  }

  // SQLite's read at once, when the store has one (looked up once, not per request).
  const { getJsonNow } = options.store;

  return function fastItemReadHandler(req, res) {
    const started = performance.now();
    const startedMs = options.clock();
    const admitted = admit(req);
    if (!admitted) return fallback(req, res);
    // Not found, or the database failed: the ordinary path answers (404, 503) with its problem page.
    if (getJsonNow) {
      // SQLite answers at once: no promise on the way.
      const body = readNow(admitted, getJsonNow);
      return body === undefined ? fallback(req, res) : send(req, res, admitted, body, started, startedMs);
    }
    readLater(admitted)
      .then((body) => (body === undefined ? fallback(req, res) : send(req, res, admitted, body, started, startedMs)))
      .catch((error: unknown) => {
        // Nothing here throws in practice; if it did, Koa answers a request not yet answered.
        if (!res.headersSent) fallback(req, res);
        else res.destroy(error as Error);
      });
  };
}
