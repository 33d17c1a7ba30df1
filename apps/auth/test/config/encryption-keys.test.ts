/**
 * The at-rest keyring in the configuration (config.ts): AUTH_ENCRYPTION_KEYS, the first key
 * sealing and every key opening; AUTH_ENCRYPTION_KEY as a ring of one; both at once refused.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';

const NEW = Buffer.alloc(32, 1);
const OLD = Buffer.alloc(32, 2);
const b64 = (key: Buffer) => key.toString('base64url');
const COOKIE = 'c'.repeat(32);
const PRODUCTION = { NODE_ENV: 'production', AUTH_COOKIE_KEYS: COOKIE, AUTH_ISSUER: 'https://id.example.com', AUTH_API_AUDIENCE: 'https://api.example.com/api' };

describe('the encryption keyring', () => {
  it('AUTH_ENCRYPTION_KEYS: the first key seals, all are kept in order', () => {
    const config = loadConfig({ ...PRODUCTION, AUTH_ENCRYPTION_KEYS: `${b64(NEW)}, ${b64(OLD)}` });
    expect(config.encryptionKeys).toEqual([NEW, OLD]);
    expect(config.encryptionKey).toEqual(NEW);
    expect(Object.isFrozen(config.encryptionKeys)).toBe(true);
  });

  it('AUTH_ENCRYPTION_KEY alone is a ring of one', () => {
    const config = loadConfig({ ...PRODUCTION, AUTH_ENCRYPTION_KEY: b64(OLD) });
    expect(config.encryptionKeys).toEqual([OLD]);
    expect(config.encryptionKey).toEqual(OLD);
  });

  it('refuses both at once, a bad key naming its position, a key listed twice, and neither in production', () => {
    expect(() => loadConfig({ ...PRODUCTION, AUTH_ENCRYPTION_KEY: b64(OLD), AUTH_ENCRYPTION_KEYS: b64(NEW) })).toThrow(
      'AUTH_ENCRYPTION_KEY and AUTH_ENCRYPTION_KEYS are both set: set only AUTH_ENCRYPTION_KEYS (the new key first, then the old ones)',
    );
    expect(() => loadConfig({ ...PRODUCTION, AUTH_ENCRYPTION_KEYS: `${b64(NEW)},short` })).toThrow(
      `AUTH_ENCRYPTION_KEYS: each key must be 32 bytes, base64url-encoded (\`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='\`), comma-separated; key 2 is not`,
    );
    expect(() => loadConfig({ ...PRODUCTION, AUTH_ENCRYPTION_KEYS: ' , ' })).toThrow('AUTH_ENCRYPTION_KEYS: each key must be 32 bytes');
    expect(() => loadConfig({ ...PRODUCTION, AUTH_ENCRYPTION_KEYS: `${b64(NEW)},${b64(NEW)}` })).toThrow('AUTH_ENCRYPTION_KEYS: a key is listed twice');
    expect(() => loadConfig(PRODUCTION)).toThrow(`AUTH_ENCRYPTION_KEYS must be set when NODE_ENV=production (each: \`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='\`)`);
  });

  it('AUTH_ENCRYPTION_KEYS may come from a file (AUTH_ENCRYPTION_KEYS_FILE)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gh-keyring-')), 'keys');
    writeFileSync(file, `${b64(NEW)},${b64(OLD)}\n`);
    expect(loadConfig({ ...PRODUCTION, AUTH_ENCRYPTION_KEYS_FILE: file }).encryptionKeys).toEqual([NEW, OLD]);
  });

  it('outside production the generated key is used only when neither variable is set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gh-keyring-dev-'));
    const generated = loadConfig({ AUTH_DATA_DIR: dir }).encryptionKeys;
    expect(generated).toHaveLength(1);
    expect(loadConfig({ AUTH_DATA_DIR: dir, AUTH_ENCRYPTION_KEYS: `${b64(NEW)},${b64(OLD)}` }).encryptionKeys).toEqual([NEW, OLD]);
  });
});
