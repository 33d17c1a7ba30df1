import type { ConsoleDeps } from '../console-deps.ts';

/** What the Users section's pages and forms use. */
export type UsersSectionDeps = Pick<ConsoleDeps, 'users' | 'issuePasswordReset' | 'clients' | 'devices' | 'passkeys' | 'sessionMeta' | 'consents'>;
