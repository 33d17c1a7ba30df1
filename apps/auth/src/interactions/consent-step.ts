/**
 * The consent step of an interaction (oidc-provider's `consent` prompt), as a page or JSON.
 * Rules:
 * - it names the client (its registered name) and the account that would grant, and shows the
 *   client's logo beside the name when one is registered (RFC 7591 `logo_uri`): the CSP's img-src
 *   allows that one origin for this response only;
 * - it lists what the client gets if the user allows: the OpenID scopes asked for, and the API
 *   scopes the access policy lets it have (those missing from the grant, and those already in
 *   it), in plain words (consent/scope-descriptions.ts);
 * - a JSON caller gets `{ status: 'consent_required', interaction, next: '/consent', client,
 *   logo_uri (null when none), scopes: [{ scope, description }] }`;
 * - a refusal of its form redirected here (step-refusal.ts) is shown on it once, with its status,
 *   message and code;
 * - Allow ends in a redirect to the client: this page's form-action allows its origin.
 */
import { pageLanguage } from '../i18n/page-language.ts';
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import { OIDC_SCOPES } from '@gatehouse/contracts';
import { describeScopes, type ScopeDescription } from '../consent/scope-descriptions.ts';
import { consentPage } from '../views/consent-page.ts';
import { clientBranding, redirectOrigin, type Interaction } from './interaction-state.ts';
import { errorBody, respond } from './respond.ts';
import type { AuthError } from '../errors/auth-error.ts';
import type { HandlerServices } from './deps.ts';

/** Where the consent form posts (not a contracts route: only this server's own page uses it). */
export const CONSENT_PATH = '/consent';

export type ConsentStepDeps = Pick<HandlerServices, 'accounts'>;

const OIDC = new Set<string>(OIDC_SCOPES);
const words = (value: unknown): string[] => (typeof value === 'string' ? value.split(' ').filter(Boolean) : []);

export interface ConsentRequest {
  accountId: string;
  clientId: string;
  /** What Allow grants: scopes in the order asked. */
  scopes: string[];
}

/** What the consent step asks the user about. */
export async function consentRequest(provider: Provider, interaction: Interaction): Promise<ConsentRequest> {
  const details = interaction.prompt.details as { missingResourceScopes?: Record<string, string[]> };
  const grant = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
  const resourceScopes = new Set([
    ...Object.values(details.missingResourceScopes ?? {}).flat(),
    ...Object.values(grant?.resources ?? {}).flatMap((scope) => words(scope)),
  ]);
  const scopes = [...new Set(words(interaction.params.scope))].filter((s) => OIDC.has(s) || resourceScopes.has(s));
  return {
    accountId: String(interaction.session?.accountId ?? ''),
    clientId: String(interaction.params.client_id ?? ''),
    scopes,
  };
}

export async function renderConsentStep(ctx: Context, deps: ConsentStepDeps & { provider: Provider }, interaction: Interaction, json: boolean, error?: AuthError): Promise<void> {
  const request = await consentRequest(deps.provider, interaction);
  const [client, account] = await Promise.all([clientBranding(deps.provider, interaction), deps.accounts.findById(request.accountId)]);
  const scopes: ScopeDescription[] = describeScopes(request.scopes);
  ctx.state.formActionOrigins = redirectOrigin(interaction);
  // The store accepted only a URL whose origin is safe to name in a CSP header (client-store.ts).
  if (client.logoUri && !json) ctx.state.imgSrcOrigins = [new URL(client.logoUri).origin];
  respond(
    ctx,
    json,
    error?.status ?? 200,
    () =>
      consentPage({
        ...(error ? { error: pageLanguage(ctx).errorText(error), errorCode: error.code } : {}),
        uid: interaction.uid,
        clientName: client.name,
        ...(client.logoUri ? { logoUri: client.logoUri } : {}),
        username: account?.username ?? '',
        scopes,
        language: pageLanguage(ctx),
      }),
    { ...(error ? errorBody(error) : {}), status: 'consent_required', interaction: interaction.uid, next: CONSENT_PATH, client: client.name, logo_uri: client.logoUri ?? null, scopes },
  );
}
