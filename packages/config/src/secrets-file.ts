import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * For `config check`, which writes nothing: the secrets kept in `file`, or undefined when it does
 * not exist yet (start-up would generate it). Creates neither the file nor its directory.
 */
export function peekSecretsFile<Secrets>(file: string): Secrets | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Secrets) : undefined;
}

/**
 * Development only: returns the secrets kept in `file`, generating them on first use.
 * The file is created with mode 0600 and never overwritten; when another process (the CLI,
 * a second app) creates it at the same moment, its secrets win, so everyone uses one set.
 */
export function loadOrCreateSecretsFile<Secrets>(file: string, generate: () => Secrets): Secrets {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Secrets;
  mkdirSync(dirname(file), { recursive: true });
  const secrets = generate();
  try {
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return JSON.parse(readFileSync(file, 'utf8')) as Secrets;
    throw error;
  }
  chmodSync(file, 0o600);
  return secrets;
}
