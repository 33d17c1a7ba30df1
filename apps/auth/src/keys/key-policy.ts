/**
 * The signing-key schedule derived from the configuration. Rules:
 * - every instance re-reads the keys at most KEY_CHECK_INTERVAL_MS apart, so an instance may
 *   keep signing with a key for that long after its successor became active;
 * - a retired key stays published for max(access token TTL, ID token TTL) after its successor
 *   activated, plus KEY_CHECK_INTERVAL_MS (the lag above), plus VERIFIER_CLOCK_TOLERANCE_SECONDS
 *   (the most a Gatehouse verifier accepts past `exp`: the API caps API_CLOCK_TOLERANCE at 300 s,
 *   oidc-provider allows 5 s), so every token it signed expires before it leaves the JWKS.
 */
import type { AuthConfig } from '../config/config.ts';

export const KEY_CHECK_INTERVAL_MS = 5_000;
export const VERIFIER_CLOCK_TOLERANCE_SECONDS = 300;

export interface KeyPolicy {
  /** Age at which the active key is replaced; null: manual rotation only. */
  readonly rotationIntervalMs: number | null;
  /** How long a new key is published before it signs. */
  readonly prepublishMs: number;
  /** How long a key stays published after it stopped signing. */
  readonly retainMs: number;
}

export function keyPolicy(config: Pick<AuthConfig, 'accessTokenTtl' | 'idTokenTtl' | 'keys'>): KeyPolicy {
  return {
    rotationIntervalMs: config.keys.rotationInterval === null ? null : config.keys.rotationInterval * 1000,
    prepublishMs: config.keys.prepublish * 1000,
    retainMs: (Math.max(config.accessTokenTtl, config.idTokenTtl) + VERIFIER_CLOCK_TOLERANCE_SECONDS) * 1000 + KEY_CHECK_INTERVAL_MS,
  };
}
