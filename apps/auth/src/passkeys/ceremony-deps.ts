import type { HandlerServices } from '../interactions/deps.ts';
import type { AuthenticationDeps } from './authentication.ts';
import { relyingParty } from './passkey-policy.ts';

export type CeremonyServices = Pick<HandlerServices, 'passkeys' | 'passkeyChallenges' | 'clock' | 'config'>;

/** The stores, clock and relying party (from the issuer) a ceremony runs on. */
export function ceremonyDeps(deps: CeremonyServices): AuthenticationDeps {
  return { passkeys: deps.passkeys, challenges: deps.passkeyChallenges, clock: deps.clock, rp: relyingParty(deps.config.issuer) };
}
