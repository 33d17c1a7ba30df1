import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { loadOrCreateSecretsFile } from '@gatehouse/config';

export interface DevSecrets {
  cookieKeys: string[];
  encryptionKey: string;
}

/**
 * Development only: the cookie keys and at-rest encryption key are generated on first start
 * and kept in `<dataDir>/auth-secrets.json` (mode 0600), so restarts keep sessions and data readable.
 */
export function loadDevSecrets(dataDir: string): DevSecrets {
  return loadOrCreateSecretsFile<DevSecrets>(join(dataDir, 'auth-secrets.json'), () => ({
    cookieKeys: [randomBytes(32).toString('base64url')],
    encryptionKey: randomBytes(32).toString('base64url'),
  }));
}
