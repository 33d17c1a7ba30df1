/**
 * Which clients are first-party. Rule: a client the operator marked first-party (client metadata
 * `first_party`, `authctl client add --first-party`) or the account page's own client
 * (account-client.ts); such a client is granted what it asks for without a consent page
 * (oidc/grants.ts) and its consent is never recorded (interactions/consent.ts).
 */
import { ACCOUNT_CLIENT_ID } from './account-client.ts';

/** A client the operator marked first-party, or the account page's own. */
export function isFirstParty(client: { clientId: string }): boolean {
  return (client as { first_party?: unknown }).first_party === true || client.clientId === ACCOUNT_CLIENT_ID;
}
