import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClientDevSecrets {
  cookieKeys: string[];
}

/**
 * Development only: the cookie-signing keys of one app are generated on first start and kept in
 * `<dataDir>/<clientId>-secrets.json` (mode 0600), so a restart (watch mode) keeps users signed in.
 */
export function loadDevSecrets(dataDir: string, clientId: string): ClientDevSecrets {
  const file = join(dataDir, `${clientId}-secrets.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as ClientDevSecrets;
  mkdirSync(dataDir, { recursive: true });
  const secrets: ClientDevSecrets = { cookieKeys: [randomBytes(32).toString('base64url')] };
  try {
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return JSON.parse(readFileSync(file, 'utf8')) as ClientDevSecrets;
    throw error;
  }
  chmodSync(file, 0o600);
  return secrets;
}
