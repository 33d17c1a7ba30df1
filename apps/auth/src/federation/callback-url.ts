/** Where an upstream provider sends the browser back: the redirect URI to register there. */
export const FEDERATED_CALLBACK_PATH = '/login/federated/:slug/callback';

export function federatedCallbackUrl(issuer: string, slug: string): string {
  return new URL(`/login/federated/${encodeURIComponent(slug)}/callback`, issuer).href;
}
