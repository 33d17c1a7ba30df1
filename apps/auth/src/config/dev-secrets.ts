import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateSecretsFile, peekSecretsFile } from '@gatehouse/config';

export interface DevSecrets {
  cookieKeys: string[];
  encryptionKey: string;
}

/** Where the development secrets of a data directory are (or would be) kept. */
export const devSecretsFile = (dataDir: string): string => join(dataDir, 'auth-secrets.json');

const generate = (): DevSecrets => ({
  cookieKeys: [randomBytes(32).toString('base64url')],
  encryptionKey: randomBytes(32).toString('base64url'),
});

/**
 * Development only: the cookie keys and at-rest encryption key are generated on first start
 * and kept in `<dataDir>/auth-secrets.json` (mode 0600), so restarts keep sessions and data readable.
 */
export function loadDevSecrets(dataDir: string): DevSecrets {
  return loadOrCreateSecretsFile<DevSecrets>(devSecretsFile(dataDir), generate);
}

/**
 * For `config check`, which writes nothing: the secrets a start would use, read from the file when
 * it exists; otherwise generated in memory only (so the rest is checked), and `wouldCreate` is the
 * file a start would write.
 */
export function previewDevSecrets(dataDir: string): { secrets: DevSecrets; wouldCreate?: string } {
  const file = devSecretsFile(dataDir);
  const secrets = peekSecretsFile<DevSecrets>(file);
  return secrets ? { secrets } : { secrets: generate(), wouldCreate: file };
}
