/**
 * The refusals of a federated sign-in, each a page the user can act on. Rules:
 * - each code has its status and its message, naming the provider: `upstream_unavailable` 502,
 *   `upstream_refused` 403, `upstream_error` 502, `state_mismatch` 400,
 *   `invalid_upstream_response` 502, `unverified_email` 403, `attempt_expired` 400,
 *   `not_invited` 403, `account_disabled` 403, `unknown_provider` 404, `already_linked` 409;
 * - each is audited `login.federated.failure` with the provider and the reason (the unknown
 *   provider aside: its name is the caller's), never with a token, code or secret;
 * - the page offers the way on (views/federated-pages.ts): try again, sign in another way, back
 *   to the app; a refusal without a live interaction is the error middleware's
 *   (interaction_expired).
 */
import type { Context } from 'koa';
import { AuthError, type AuthErrorCode } from '../../errors/auth-error.ts';
import type { FederatedFailureReason } from '../../audit/audit-events.ts';
import type { UpstreamProvider } from '../../federation/upstream-provider.ts';
import { ENGLISH, pageLanguage, type PageLanguage } from '../../i18n/page-language.ts';
import { federatedErrorPage } from '../../views/federated-pages.ts';
import type { HandlerServices } from '../deps.ts';
import { clientName, redirectOrigin, type Interaction } from '../interaction-state.ts';

export type FederatedRefusalCode = FederatedFailureReason | 'unknown_provider' | 'already_linked';

const STATUS: Record<FederatedRefusalCode, number> = {
  upstream_unavailable: 502,
  upstream_refused: 403,
  upstream_error: 502,
  state_mismatch: 400,
  invalid_upstream_response: 502,
  unverified_email: 403,
  attempt_expired: 400,
  not_invited: 403,
  account_disabled: 403,
  unknown_provider: 404,
  already_linked: 409,
};

/**
 * What the page and the error say about a refusal (i18n catalogue `federated.message.<code>`), in
 * `language`; the error's message is English. Without a provider (an attempt this browser does not hold
 * any more) the words do without its name.
 */
export function federatedMessage(code: FederatedRefusalCode, providerName: string | undefined, detail?: { email?: string }, language: PageLanguage = ENGLISH): string {
  if (providerName === undefined && code === 'attempt_expired') return language.t('federated.message.attemptExpiredUnnamed');
  const provider = providerName ?? language.t('federated.theProvider');
  if (code === 'unverified_email' && detail?.email) return language.t('federated.message.unverifiedEmailOf', { provider, email: detail.email });
  return language.t(`federated.message.${code}`, { provider });
}

export function federatedError(code: FederatedRefusalCode, providerName: string, detail?: { email?: string }): AuthError {
  return new AuthError(STATUS[code], code as AuthErrorCode, federatedMessage(code, providerName, detail));
}

export type FederatedRefusalDeps = Pick<HandlerServices, 'provider' | 'audit' | 'metrics'>;

/** Answers the refusal with its page (status, message, code, the way on) and audits it. */
export async function showFederatedRefusal(
  ctx: Context,
  deps: FederatedRefusalDeps,
  request: { interaction: Interaction; upstream?: Pick<UpstreamProvider, 'slug' | 'displayName'> },
  code: FederatedRefusalCode,
  detail?: { email?: string },
): Promise<void> {
  const { interaction, upstream } = request;
  if (upstream && code !== 'unknown_provider' && code !== 'already_linked') {
    deps.audit.record('login.federated.failure', { provider: upstream.slug, ip: ctx.ip, reason: code });
    deps.metrics.login('federated', 'failure');
  }
  const name = await clientName(deps.provider(), interaction);
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  ctx.status = STATUS[code];
  ctx.type = 'html';
  const retry = upstream && code !== 'account_disabled' && code !== 'unknown_provider' ? { slug: upstream.slug, displayName: upstream.displayName } : undefined;
  const language = pageLanguage(ctx);
  ctx.body = federatedErrorPage({
    title: language.t(`federated.title.${code}`),
    message: federatedMessage(code, upstream?.displayName, detail, language),
    language,
    code,
    ...(ctx.state.requestId ? { requestId: String(ctx.state.requestId) } : {}),
    way: { uid: interaction.uid, clientName: name, ...(retry ? { retry } : {}) },
  });
}
