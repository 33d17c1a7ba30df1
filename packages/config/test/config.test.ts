import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, loadOrCreateSecretsFile, parseEnv } from '../src/index.ts';

describe('parseEnv', () => {
  const schema = z.object({ PORT: z.coerce.number().int().max(65535).default(3000), NAME: z.string().default('x') });

  it('applies defaults and coercions', () => {
    expect(parseEnv(schema, {})).toEqual({ PORT: 3000, NAME: 'x' });
    expect(parseEnv(schema, { PORT: '8080' })).toEqual({ PORT: 8080, NAME: 'x' });
  });

  it('throws one ConfigError naming the variable', () => {
    expect(() => parseEnv(schema, { PORT: '70000' })).toThrow(ConfigError);
    expect(() => parseEnv(schema, { PORT: '70000' })).toThrow(/^invalid setting PORT: /);
  });
});

describe('loadOrCreateSecretsFile', () => {
  it('generates once, keeps the file private, and returns the same secrets afterwards', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gh-secrets-')), 'nested', 's.json');
    let calls = 0;
    const first = loadOrCreateSecretsFile(file, () => ({ key: `k${++calls}` }));
    const second = loadOrCreateSecretsFile(file, () => ({ key: `k${++calls}` }));
    expect(first).toEqual({ key: 'k1' });
    expect(second).toEqual({ key: 'k1' });
    expect(calls).toBe(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('uses an existing file as it is', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gh-secrets-')), 's.json');
    writeFileSync(file, '{"key":"theirs"}');
    expect(loadOrCreateSecretsFile(file, () => ({ key: 'mine' }))).toEqual({ key: 'theirs' });
  });
});
