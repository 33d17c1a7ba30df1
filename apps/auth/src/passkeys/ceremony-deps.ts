import type { AuthConfig } from '../config/config.ts';
import type { AuthenticationDeps } from './authentication.ts';
import type { ChallengeStore } from './challenge-store.ts';
import { relyingParty } from './passkey-policy.ts';
import type { PasskeyStore } from './passkey-store.ts';

/** What a ceremony's handler is given: the two passkey stores, the clock and the issuer. */
export interface CeremonyServices {
  passkeys: PasskeyStore;
  passkeyChallenges: ChallengeStore;
  clock: () => number;
  config: Pick<AuthConfig, 'issuer'>;
}

/** The stores, clock and relying party (from the issuer) a ceremony runs on. */
export function ceremonyDeps(deps: CeremonyServices): AuthenticationDeps {
  return { passkeys: deps.passkeys, challenges: deps.passkeyChallenges, clock: deps.clock, rp: relyingParty(deps.config.issuer) };
}
