import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DevSecrets {
  cookieKeys: string[];
  encryptionKey: string;
}

/**
 * Development only: the cookie keys and at-rest encryption key are generated on first start
 * and kept in `<dataDir>/auth-secrets.json` (mode 0600), so restarts keep sessions and data readable.
 */
export function loadDevSecrets(dataDir: string): DevSecrets {
  const file = join(dataDir, 'auth-secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
  mkdirSync(dataDir, { recursive: true });
  const secrets: DevSecrets = {
    cookieKeys: [randomBytes(32).toString('base64url')],
    encryptionKey: randomBytes(32).toString('base64url'),
  };
  try {
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process (the CLI, a second app) created it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
    throw error;
  }
  chmodSync(file, 0o600);
  return secrets;
}
