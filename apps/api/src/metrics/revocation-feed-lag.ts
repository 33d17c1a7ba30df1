/**
 * `gatehouse_revocation_feed_lag_seconds`: seconds since this API instance last heard from the
 * authorization server's revocation feed (an event, a catch-up page or the heartbeat). Healthy
 * is a few seconds; beyond API_REVOCATION_MAX_STALENESS the deny-list is stale and JWTs are
 * checked by introspection (auth/authenticator.ts). Read at each scrape from the injected clock.
 */
import { Gauge, type Registry } from '@gatehouse/metrics';
import type { RevocationFeed } from '../auth/revocation-feed.ts';

export function registerRevocationFeedLag(registry: Registry, feed: Pick<RevocationFeed, 'lagSeconds'>, clock: () => number): void {
  new Gauge({
    name: 'gatehouse_revocation_feed_lag_seconds',
    help: 'Seconds since the last event, page or heartbeat of the revocation feed (a few while healthy).',
    registers: [registry],
    collect() {
      this.set(feed.lagSeconds(clock()));
    },
  });
}
