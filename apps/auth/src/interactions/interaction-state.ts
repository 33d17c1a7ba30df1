/**
 * The password step's outcome is kept on oidc-provider's Interaction (stored server-side,
 * bound to the browser by the signed interaction cookie), under `result.gatehouse`.
 * oidc-provider ignores that key when resuming, so a half-finished login never logs anyone in.
 */
import { isDatabaseUnavailable } from '@gatehouse/db';
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import { interactionExpired } from '../errors/auth-error.ts';
import { bindStartedInteraction, wayBack } from './browser-interactions.ts';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
export type { Interaction };

/** A second factor that passed (mfa/complete-login.ts ends the login with it). */
export type PassedFactor =
  | { method: 'totp' | 'recovery' }
  | { method: 'push'; pushId: string }
  /** `amr`: the passkey's own (passkeyAmr), after `pwd`. */
  | { method: 'passkey'; credentialId: string; amr: string[] };

export interface PendingLogin {
  accountId: string;
  username: string;
  passwordAt: number;
  /**
   * The account is enrolling TOTP: its pending secret is the account's, kept sealed in
   * accounts/totp-enrollment-store.ts until confirmed or started over.
   */
  enrolling?: true;
  /**
   * The second factor passed, but the account has recovery codes the user has not confirmed
   * saving: the login completes with this factor on "I have saved them" (mfa/recovery-codes-saved.ts).
   */
  passed?: PassedFactor;
  /** The slug of the upstream provider that stood for the first factor (a federated sign-in). */
  federatedBy?: string;
}

/** The steps an interaction can be at: the prompts of oidc/interaction-policy.ts. */
export type InteractionPrompt = 'select_account' | 'login' | 'consent';

/**
 * The interaction bound to this browser; the form's `uid` must match the cookie's (after binding
 * the browser again to an interaction it started in another tab), and its prompt must be one the
 * caller handles (a login form posted to a consent step is expired). An expired one leads on
 * (browser-interactions.ts wayBack).
 */
export async function loadInteraction(provider: Provider, ctx: Context, formUid?: string, prompts: readonly InteractionPrompt[] = ['login']): Promise<Interaction> {
  let interaction: Interaction;
  try {
    // Another tab may have started a sign-in since this form was shown (browser-interactions.ts).
    if (formUid) await bindStartedInteraction(provider, ctx, formUid);
    interaction = await provider.interactionDetails(ctx.req, ctx.res);
  } catch (error) {
    // An outage is a 503 (request-context.ts), not an expired sign-in.
    if (isDatabaseUnavailable(error)) throw error;
    throw interactionExpired(await wayBack(provider, ctx, formUid));
  }
  if (formUid !== undefined && formUid !== interaction.uid) throw interactionExpired(await wayBack(provider, ctx, formUid));
  if (!(prompts as readonly string[]).includes(interaction.prompt.name)) throw interactionExpired(await wayBack(provider, ctx, formUid));
  return interaction;
}

export function pendingLogin(interaction: Interaction): PendingLogin | undefined {
  const state = (interaction.result as { gatehouse?: PendingLogin } | undefined)?.gatehouse;
  return state && typeof state.accountId === 'string' ? state : undefined;
}

/**
 * Stores the pending login on the interaction without changing when it expires. That expiry is
 * oidc-provider's (its own clock, like its `persist()`), so no time of ours is mixed in.
 */
export async function savePendingLogin(interaction: Interaction, pending: PendingLogin): Promise<void> {
  // Other steps' state on the interaction (a federated sign-in's, federated/federation-state.ts) stays.
  interaction.result = { ...interaction.result, gatehouse: pending };
  await interaction.persist();
}

/** Display name of the client that started the interaction. */
export async function clientName(provider: Provider, interaction: Interaction): Promise<string> {
  const clientId = String(interaction.params.client_id ?? '');
  const client = clientId ? await provider.Client.find(clientId) : undefined;
  return client?.clientName ?? clientId;
}

/** The client's name and its logo (RFC 7591 `logo_uri`, absent when none), for the consent page. */
export async function clientBranding(provider: Provider, interaction: Interaction): Promise<{ name: string; logoUri?: string }> {
  const clientId = String(interaction.params.client_id ?? '');
  const client = clientId ? await provider.Client.find(clientId) : undefined;
  const name = client?.clientName ?? clientId;
  return client?.logoUri ? { name, logoUri: client.logoUri } : { name };
}

/**
 * The client's branding for a sign-in page (login, second factor), and its logo's origin allowed
 * as an image source of this answer's CSP (http/security-headers.ts): only the registered logo's
 * origin, on this page only, never any https image.
 */
export async function pageBranding(ctx: Context, provider: Provider, interaction: Interaction): Promise<{ name: string; logoUri?: string }> {
  const branding = await clientBranding(provider, interaction);
  if (branding.logoUri) ctx.state.imgSrcOrigins = [new URL(branding.logoUri).origin];
  return branding;
}

/** The origin the browser is redirected to at the end of the interaction (for CSP form-action). */
export function redirectOrigin(interaction: Interaction): string[] {
  try {
    return [new URL(String(interaction.params.redirect_uri)).origin];
  } catch {
    return [];
  }
}
