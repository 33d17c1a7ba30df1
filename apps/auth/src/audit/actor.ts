import type { ActorFields } from './audit-events.ts';

/** Who makes a change: authctl, an admin user's token, or a machine's (client_credentials) token (admin/http/). */
export type Actor = { kind: 'operator'; name: string } | { kind: 'account'; accountId: string } | { kind: 'client'; clientId: string };

/** The CLI's actor. */
export const CLI_OPERATOR: Actor = { kind: 'operator', name: 'cli' };

/** The audit fields that name the actor of a change. */
export function actorFields(actor: Actor): ActorFields {
  switch (actor.kind) {
    case 'operator':
      return { actor_kind: 'operator', actor: actor.name };
    case 'account':
      return { actor_kind: 'account', actor: actor.accountId };
    case 'client':
      return { actor_kind: 'client', actor: actor.clientId };
  }
}
