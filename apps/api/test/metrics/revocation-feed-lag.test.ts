/** gatehouse_revocation_feed_lag_seconds: the age of the feed's last contact, on the injected clock. */
import { describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { Registry } from '@gatehouse/metrics';
import { createRevocationFeed } from '../../src/auth/revocation-feed.ts';
import { createRevocationList } from '../../src/auth/revocation-list.ts';
import { registerRevocationFeedLag } from '../../src/metrics/revocation-feed-lag.ts';

const T = Date.parse('2026-11-26T12:00:00.000Z');

async function lag(registry: Registry): Promise<string> {
  return (await registry.metrics()).split('\n').find((line) => line.startsWith('gatehouse_revocation_feed_lag_seconds '))!;
}

function feedWith(fetch: typeof globalThis.fetch, clock: () => number) {
  return createRevocationFeed({ url: 'http://127.0.0.1:9/oauth2/v1/revocations', clientId: 'api', clientSecret: 's', list: createRevocationList(100), fetch, clock, maxStalenessMs: 15_000, logger: pino({ level: 'silent' }), retryMs: 60_000 });
}

describe('gatehouse_revocation_feed_lag_seconds', () => {
  it('is 0 right after a contact and grows with the clock until the next one', async () => {
    let now = T;
    let pages = 0;
    // A catch-up page, then a stream that stays open and silent until aborted.
    const fetch = (async (_url: URL, init: RequestInit) => {
      if ((init.headers as Record<string, string>).accept === 'application/json') {
        pages++;
        return Response.json({ events: [], cursor: 0, more: false });
      }
      return new Promise((_resolve, reject) => init.signal!.addEventListener('abort', () => reject(new Error('aborted'))));
    }) as unknown as typeof globalThis.fetch;
    const registry = new Registry();
    const feed = feedWith(fetch, () => now);
    registerRevocationFeedLag(registry, feed, () => now);
    feed.start();
    await vi.waitFor(() => expect(pages).toBe(1));
    expect(await lag(registry)).toBe('gatehouse_revocation_feed_lag_seconds 0');
    now += 7_500;
    expect(await lag(registry)).toBe('gatehouse_revocation_feed_lag_seconds 7.5');
    feed.stop();
  });

  it('counts from start while the feed has never answered', async () => {
    let now = T;
    const fetch = (async () => {
      throw new TypeError('fetch failed');
    }) as unknown as typeof globalThis.fetch;
    const registry = new Registry();
    const feed = feedWith(fetch, () => now);
    registerRevocationFeedLag(registry, feed, () => now);
    feed.start();
    now += 42_000;
    expect(await lag(registry)).toBe('gatehouse_revocation_feed_lag_seconds 42');
    feed.stop();
  });
});
