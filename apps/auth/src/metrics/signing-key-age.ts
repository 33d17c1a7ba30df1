/**
 * `gatehouse_signing_key_age_seconds`: how long the key that signs now has been signing, as this
 * instance sees it (its loaded key set; every instance reloads within seconds of a rotation).
 * Scheduled rotation keeps it below AUTH_KEY_ROTATION_INTERVAL; an age beyond that means rotation
 * stopped (or is `off`). No sample while no key signs. Read at each scrape from the injected clock.
 */
import { Gauge, type Registry } from '@gatehouse/metrics';

export function registerSigningKeyAge(registry: Registry, signingSince: () => number | null, clock: () => number): void {
  new Gauge({
    name: 'gatehouse_signing_key_age_seconds',
    help: 'Seconds since the signing key in use started signing.',
    registers: [registry],
    collect() {
      const since = signingSince();
      if (since === null) this.reset();
      else this.set(Math.max(0, (clock() - since) / 1000));
    },
  });
}
