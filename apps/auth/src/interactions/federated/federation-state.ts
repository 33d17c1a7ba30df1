/**
 * A federated sign-in's state, kept on oidc-provider's Interaction (stored server-side, bound to
 * the browser by the signed interaction cookie) under `result.gatehouseFederation`, beside the
 * password step's (interaction-state.ts). Rules:
 * - `attempt`: the upstream round trip under way: the provider, the `state`, `nonce` and PKCE
 *   verifier sent (never shown to the browser but `state`), and when it started (injected
 *   clock); it lives ATTEMPT_TTL_MS, answers one callback, and a new start replaces it;
 * - `pending`: an upstream user with no link whose e-mail matches a local account, or who is
 *   not invited: the choice page's subject (link the local account, or create one);
 * - `linking`: the user chose to link; the password step and the second factor that follow link
 *   the upstream user to the account they prove (mfa/complete-login.ts);
 * - oidc-provider ignores these keys when resuming, so none of them logs anyone in.
 */
import type { UpstreamChecks } from '../../federation/upstream-client.ts';
import type { UpstreamProfile } from '../../federation/upstream-profile.ts';
import type { Interaction } from '../interaction-state.ts';

/** Shorter than the interaction's own lifetime (AUTH_INTERACTION_TTL, ten minutes by default). */
export const ATTEMPT_TTL_MS = 5 * 60_000;

export interface FederatedAttempt extends UpstreamChecks {
  provider: string;
  startedAt: number;
}

/** An upstream user the sign-in knows, not yet linked to an account. */
export interface UpstreamUser {
  provider: string;
  providerName: string;
  subject: string;
  profile: UpstreamProfile;
  /** The upstream's sign-in counted as two factors (federation/upstream-mfa.ts). */
  upstreamMfa: boolean;
}

export interface PendingChoice extends UpstreamUser {
  /** A local account with the upstream's verified e-mail, offered for linking. */
  matchedUsername?: string;
}

export interface FederationState {
  attempt?: FederatedAttempt;
  pending?: PendingChoice;
  linking?: UpstreamUser;
}

export function federationState(interaction: Interaction): FederationState {
  const state = (interaction.result as { gatehouseFederation?: FederationState } | undefined)?.gatehouseFederation;
  return state && typeof state === 'object' ? state : {};
}

/** Replaces the federation state, keeping the password step's; oidc-provider's expiry is unchanged. */
export async function saveFederationState(interaction: Interaction, state: FederationState): Promise<void> {
  interaction.result = { ...interaction.result, gatehouseFederation: state };
  await interaction.persist();
}
