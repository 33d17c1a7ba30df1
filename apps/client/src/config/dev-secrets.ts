import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateSecretsFile, peekSecretsFile } from '@gatehouse/config';

export interface ClientDevSecrets {
  cookieKeys: string[];
}

const devSecretsFile = (dataDir: string, clientId: string): string => join(dataDir, `${clientId}-secrets.json`);

const generate = (): ClientDevSecrets => ({ cookieKeys: [randomBytes(32).toString('base64url')] });

/**
 * Development only: the cookie-signing keys of one app are generated on first start and kept in
 * `<dataDir>/<clientId>-secrets.json` (mode 0600), so a restart (watch mode) keeps users signed in.
 */
export function loadDevSecrets(dataDir: string, clientId: string): ClientDevSecrets {
  return loadOrCreateSecretsFile<ClientDevSecrets>(devSecretsFile(dataDir, clientId), generate);
}

/**
 * For `config:check` and the launcher's check, which write nothing: the keys a start would use,
 * read from the file when it exists; otherwise generated in memory only (so the rest is checked),
 * and `wouldCreate` is the file a start would write.
 */
export function previewDevSecrets(dataDir: string, clientId: string): { secrets: ClientDevSecrets; wouldCreate?: string } {
  const file = devSecretsFile(dataDir, clientId);
  const secrets = peekSecretsFile<ClientDevSecrets>(file);
  return secrets ? { secrets } : { secrets: generate(), wouldCreate: file };
}
