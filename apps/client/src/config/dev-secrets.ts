import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateSecretsFile } from '@gatehouse/config';

export interface ClientDevSecrets {
  cookieKeys: string[];
}

/**
 * Development only: the cookie-signing keys of one app are generated on first start and kept in
 * `<dataDir>/<clientId>-secrets.json` (mode 0600), so a restart (watch mode) keeps users signed in.
 */
export function loadDevSecrets(dataDir: string, clientId: string): ClientDevSecrets {
  return loadOrCreateSecretsFile<ClientDevSecrets>(join(dataDir, `${clientId}-secrets.json`), () => ({
    cookieKeys: [randomBytes(32).toString('base64url')],
  }));
}
