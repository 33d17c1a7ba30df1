/**
 * The revocation feed, `GET /oauth2/v1/revocations`, that resource servers follow so a revoked
 * JWT access token is refused everywhere within seconds without a call per request. Rules:
 * - only the resource servers' own clients may read it (the API's client, AUTH_API_CLIENT_ID:
 *   token-policies.ts resourceServerClients), since every event names a user (`sub`) and a grant;
 * - they authenticate with HTTP Basic client credentials (RFC 6749 2.3.1), compared in constant
 *   time (the current secret, or the previous one during a rotation's grace period:
 *   clients/client-secret.ts); no, malformed or wrong credentials, or those of a public client,
 *   are 401 invalid_client with `WWW-Authenticate: Basic`;
 * - the registered method is honoured: HTTP Basic is client_secret_basic, so a client registered
 *   for another method (client_secret_post has no body on a GET or an event stream; the JWT
 *   methods need an assertion) is 401 invalid_client saying so, once its secret matched;
 * - a client that authenticated but is not a resource server's is 403 unauthorized_client;
 * - `?since=<cursor>` (default 0: every revocation still in force) answers a JSON page
 *   `{ events, cursor, more }` of at most `limit` (1-1000, default 500) events, oldest first;
 * - with `Accept: text/event-stream` it is a Server-Sent Events stream: each event carries
 *   `id: <cursor>`, `event: <type>` and the JSON event; it starts after `since` or the
 *   `Last-Event-ID` header (a reconnecting EventSource resumes where it stopped), polls the
 *   table every `pollMs`, sends a comment heartbeat every `heartbeatMs` and closes after
 *   `maxAgeMs` with a `retry:` hint so long-lived connections spread across instances;
 * - the events come from revocation-store.ts, so every instance serves the same feed.
 */
import type { Context, Next } from 'koa';
import { AUTH_ROUTES, type RevocationEvent, type RevocationFeedPage } from '@gatehouse/contracts';
import type { ClientStore } from '../clients/client-store.ts';
import type { Logger } from '../logging/logger.ts';
import { safeEqual } from '../crypto/safe-equal.ts';
import { clientSecretMatches } from '../clients/client-secret.ts';
import type { RevocationStore } from '../revocation/revocation-store.ts';
import type { StreamRegistry } from '../http/stream-registry.ts';
import { openEventStream } from '../http/event-stream.ts';

export interface RevocationFeedDeps {
  revocations: Pick<RevocationStore, 'since'>;
  clients: Pick<ClientStore, 'find'>;
  /** The clients that may read the feed: the resource servers' own (token-policies.ts resourceServerClients). */
  readers: readonly string[];
  logger: Logger;
  /** Open streams, ended with a retry hint on shutdown. */
  streams?: StreamRegistry;
  pollMs?: number;
  heartbeatMs?: number;
  maxAgeMs?: number;
}

const DEFAULT_LIMIT = 500;
const MAX_LIMIT = 1000;

function decodePart(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, '%20'));
  } catch {
    return value;
  }
}

/** Who the Basic header names: a client whose secret matched, with its registered method; undefined: no valid credentials. */
async function authenticate(ctx: Context, clients: RevocationFeedDeps['clients']): Promise<{ clientId: string; method: string } | undefined> {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(ctx.get('authorization'));
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const clientId = decodePart(decoded.slice(0, colon));
  const secret = decodePart(decoded.slice(colon + 1));
  const client = await clients.find(clientId);
  if (!client || client.public || client.clientSecret === undefined) {
    safeEqual(secret, 'x'.repeat(43));
    return undefined;
  }
  return clientSecretMatches(secret, { current: client.clientSecret, previous: client.previousClientSecret }) ? { clientId, method: client.tokenEndpointAuthMethod } : undefined;
}

function fail(ctx: Context, status: number, error: string, description: string): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

function parseCursor(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return 0;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

function sseEvent(event: RevocationEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function revocationFeed(deps: RevocationFeedDeps) {
  const pollMs = deps.pollMs ?? 1_000;
  const heartbeatMs = deps.heartbeatMs ?? 5_000;
  const maxAgeMs = deps.maxAgeMs ?? 10 * 60_000;

  return async function feed(ctx: Context, next: Next): Promise<void> {
    if (ctx.path !== AUTH_ROUTES.revocations) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      return fail(ctx, 405, 'method_not_allowed', 'The revocation feed is read with GET.');
    }
    const client = await authenticate(ctx, deps.clients);
    if (!client || client.method !== 'client_secret_basic') {
      ctx.set('WWW-Authenticate', 'Basic realm="revocations", charset="UTF-8"');
      if (!client) return fail(ctx, 401, 'invalid_client', "The revocation feed needs the credentials of the resource server's client (HTTP Basic).");
      return fail(ctx, 401, 'invalid_client', `The revocation feed accepts HTTP Basic credentials only: register the client for client_secret_basic (it is registered for ${client.method}).`);
    }
    if (!deps.readers.includes(client.clientId)) {
      return fail(ctx, 403, 'unauthorized_client', "Only the resource server's client may read the revocation feed.");
    }
    const clientId = client.clientId;
    const stream = ctx.accepts('application/json', 'text/event-stream') === 'text/event-stream' && ctx.get('accept').includes('text/event-stream');
    const since = parseCursor((stream && ctx.get('last-event-id')) || (ctx.query.since as string | undefined));
    if (since === undefined) return fail(ctx, 400, 'invalid_request', 'since (or Last-Event-ID) must be a non-negative integer cursor.');
    const limitRaw = ctx.query.limit as string | undefined;
    const limit = limitRaw === undefined ? DEFAULT_LIMIT : /^\d{1,4}$/.test(limitRaw) ? Number(limitRaw) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) return fail(ctx, 400, 'invalid_request', `limit must be an integer from 1 to ${MAX_LIMIT}.`);

    if (!stream) {
      const events = await deps.revocations.since(since, limit + 1);
      const page: RevocationFeedPage = {
        events: events.slice(0, limit),
        cursor: events.length ? events[Math.min(limit, events.length) - 1]!.id : since,
        more: events.length > limit,
      };
      ctx.set('Cache-Control', 'no-store');
      ctx.body = page;
      return;
    }
    openStream(ctx, since, clientId);
  };

  function openStream(ctx: Context, since: number, clientId: string): void {
    const stream = openEventStream(ctx);
    const write = stream.write;
    let cursor = since;
    let closed = false;
    let polling = false;
    const poll = async () => {
      if (closed || polling) return;
      polling = true;
      try {
        for (;;) {
          const events = await deps.revocations.since(cursor, DEFAULT_LIMIT);
          if (closed) return;
          for (const event of events) write(sseEvent(event));
          if (events.length) cursor = events[events.length - 1]!.id;
          if (events.length < DEFAULT_LIMIT) break;
        }
      } catch (error) {
        deps.logger.warn({ event: 'revocation_feed.poll_failed', err: error, client_id: clientId }, 'revocation feed poll failed');
        close();
      } finally {
        polling = false;
      }
    };
    const pollTimer = setInterval(() => void poll(), pollMs);
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), heartbeatMs);
    const maxAge = setTimeout(() => close(), maxAgeMs);
    const unregister = deps.streams?.add((retryMs) => {
      write(`retry: ${retryMs}\n\n`);
      close();
    });
    function close() {
      if (closed) return;
      closed = true;
      unregister?.();
      clearInterval(pollTimer);
      clearInterval(heartbeat);
      clearTimeout(maxAge);
      stream.end();
    }
    stream.onClose(close);
    write('retry: 2000\n: connected\n\n');
    void poll();
  }
}
