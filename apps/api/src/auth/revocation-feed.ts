/**
 * Follows the authorization server's revocation feed (`GET /oauth2/v1/revocations`) and keeps
 * the deny-list (revocation-list.ts) current. Rules:
 * - on every (re)connect it first catches up with JSON pages from its cursor (0 at start: every
 *   revocation still in force), then opens the Server-Sent Events stream from that cursor;
 * - it authenticates with the API's own client credentials (HTTP Basic, as for introspection);
 * - any byte from the server (an event or the heartbeat comment) counts as contact; the list is
 *   fresh while the last contact is younger than `maxStalenessMs`. A stale list makes the
 *   authenticator ask introspection instead (authenticator.ts), so a revocation is never
 *   missed silently while the feed is down;
 * - a failed or ended connection is retried with a growing delay (0.5 s to 10 s); the first
 *   failure of a streak is logged once, without credentials;
 * - stop() aborts the connection and the retry loop;
 * - `lagSeconds` is the age of the last contact (the API's `gatehouse_revocation_feed_lag_seconds`):
 *   a few seconds at most while the feed is healthy (the heartbeat), growing while it is down.
 */
import { RevocationEvent, RevocationFeedPage } from '@gatehouse/contracts';
import type { Logger } from 'pino';
import type { RevocationList } from './revocation-list.ts';

export interface RevocationFeed {
  start(): void;
  stop(): void;
  /** Whether the deny-list is known to be current at `nowMs`. */
  isFresh(nowMs: number): boolean;
  /** Seconds since the last contact with the feed (an event, a page or a heartbeat), or since start() before any. */
  lagSeconds(nowMs: number): number;
  readonly cursor: number;
}

export interface RevocationFeedOptions {
  url: string;
  clientId: string;
  clientSecret: string;
  list: RevocationList;
  fetch: typeof fetch;
  clock: () => number;
  maxStalenessMs: number;
  logger: Logger;
  /** First retry delay; doubles up to 10 s. */
  retryMs?: number;
}

const formEncode = (value: string): string => encodeURIComponent(value).replace(/%20/g, '+');
const PAGE_LIMIT = 1000;
const MAX_RETRY_MS = 10_000;

class FeedError extends Error {}

export function createRevocationFeed(options: RevocationFeedOptions): RevocationFeed {
  const authorization = `Basic ${Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString('base64')}`;
  const firstRetry = options.retryMs ?? 500;
  let cursor = 0;
  let lastContact = -Infinity;
  let startedAt: number | undefined;
  let running = false;
  let abort: AbortController | undefined;
  let wake: (() => void) | undefined;

  const touch = () => {
    lastContact = options.clock();
  };
  const apply = (event: RevocationEvent) => {
    options.list.apply(event);
    if (event.id > cursor) cursor = event.id;
  };

  async function catchUp(signal: AbortSignal): Promise<void> {
    for (;;) {
      const url = new URL(options.url);
      url.searchParams.set('since', String(cursor));
      url.searchParams.set('limit', String(PAGE_LIMIT));
      const response = await options.fetch(url, { headers: { authorization, accept: 'application/json' }, redirect: 'error', signal });
      if (!response.ok) throw new FeedError(`the revocation feed answered ${response.status}`);
      const page = RevocationFeedPage.safeParse(await response.json());
      if (!page.success) throw new FeedError('the revocation feed answered an unexpected body');
      for (const event of page.data.events) apply(event);
      cursor = Math.max(cursor, page.data.cursor);
      touch();
      if (!page.data.more) break;
    }
    options.list.prune(options.clock());
  }

  async function follow(signal: AbortSignal): Promise<void> {
    const url = new URL(options.url);
    url.searchParams.set('since', String(cursor));
    const response = await options.fetch(url, {
      headers: { authorization, accept: 'text/event-stream', 'last-event-id': String(cursor) },
      redirect: 'error',
      signal,
    });
    if (!response.ok || !response.body) throw new FeedError(`the revocation feed stream answered ${response.status}`);
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) throw new FeedError('the revocation feed did not answer an event stream');
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      touch();
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = block
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        if (!data) continue;
        let json: unknown;
        try {
          json = JSON.parse(data);
        } catch {
          throw new FeedError('the revocation feed sent an event that is not JSON');
        }
        const event = RevocationEvent.safeParse(json);
        // An event type this API does not know yet is skipped, not fatal.
        if (event.success) apply(event.data);
      }
    }
    options.list.prune(options.clock());
  }

  async function run(): Promise<void> {
    let delay = firstRetry;
    let failing = false;
    while (running) {
      abort = new AbortController();
      try {
        await catchUp(abort.signal);
        if (failing) options.logger.info({ event: 'revocation_feed.recovered' }, 'revocation feed reconnected');
        failing = false;
        delay = firstRetry;
        await follow(abort.signal);
      } catch (error) {
        if (!running) return;
        if (!failing) {
          const reason = error instanceof FeedError ? error.message : 'the revocation feed could not be reached';
          options.logger.warn({ event: 'revocation_feed.down', url: options.url, reason }, 'revocation feed unavailable; JWTs are checked by introspection once it is stale');
        }
        failing = true;
      }
      if (!running) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        timer.unref();
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      startedAt = options.clock();
      void run();
    },
    stop() {
      running = false;
      abort?.abort();
      wake?.();
    },
    isFresh(nowMs) {
      return nowMs - lastContact <= options.maxStalenessMs;
    },
    lagSeconds(nowMs) {
      const since = Number.isFinite(lastContact) ? lastContact : (startedAt ?? nowMs);
      return Math.max(0, (nowMs - since) / 1000);
    },
    get cursor() {
      return cursor;
    },
  };
}
