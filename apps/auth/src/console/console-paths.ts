/**
 * Where the admin console lives. Every console page and form is under CONSOLE_PATH; the
 * sections (console/sections.ts) each own a prefix below it. The audit trail's filters are
 * query parameters any section may link to (`auditTrailUrl`).
 */
export { CONSOLE_CALLBACK_PATH } from '../clients/account-client.ts';

export const CONSOLE_PATH = '/admin';

/**
 * The audit trail page (Audit trail section), filtered as `authctl audit` is: `user` a username
 * (also matching failed sign-ins of a typed name), `account` an account id, `client` a client id,
 * `event` a name or a prefix ending in `.`.
 */
export function auditTrailUrl(filter: { user?: string; account?: string; client?: string; event?: string } = {}): string {
  const query = new URLSearchParams(Object.entries(filter).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
  const search = query.toString();
  return `${CONSOLE_PATH}/audit${search ? `?${search}` : ''}`;
}

/** A user's page in the Users section. */
export const userUrl = (accountId: string): string => `${CONSOLE_PATH}/users/${encodeURIComponent(accountId)}`;

/** A client's page in the Clients section. */
export const clientUrl = (clientId: string): string => `${CONSOLE_PATH}/clients/${encodeURIComponent(clientId)}`;
