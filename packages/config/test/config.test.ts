import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, ConfigProblems, loadOrCreateSecretsFile, parseEnv, refuseRenamed } from '../src/index.ts';

/** The message of the error `fn` throws (exact comparison, unlike toThrow's substring match). */
function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

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

  it('reports every bad variable at once, one line each', () => {
    const two = z.object({ PORT: z.coerce.number().int().max(65535).default(3000), MODE: z.enum(['a', 'b']).default('a') });
    const error = thrown(() => parseEnv(two, { PORT: '70000', MODE: 'c' }));
    expect(error.message).toBe('invalid settings:\n  PORT: Too big: expected number to be <=65535\n  MODE: Invalid option: expected one of "a"|"b"');
    expect(error.problems).toEqual(['PORT: Too big: expected number to be <=65535', 'MODE: Invalid option: expected one of "a"|"b"']);
  });

  it('with a collector, returns the rest of the settings (refused ones at their defaults) so cross-field checks join the report', () => {
    const problems = new ConfigProblems();
    const e = parseEnv(schema, { PORT: '70000', NAME: 'y' }, { problems });
    expect(e).toEqual({ PORT: 3000, NAME: 'y' });
    expect(problems.has('PORT')).toBe(true);
    expect(problems.has('NAME')).toBe(false);
    problems.sentence('NAME', 'NAME must be x when PORT is 3000');
    expect(thrown(() => problems.throwIfAny()).message).toBe('invalid settings:\n  PORT: Too big: expected number to be <=65535\n  NAME must be x when PORT is 3000');
  });

  it('refuses a renamed variable, naming its new name, and never reads it', () => {
    const issuer = z.object({ NEW_ISSUER: z.string().default('d') });
    expect(() => parseEnv(issuer, { OLD_ISSUER: 'x' }, { renamed: { OLD_ISSUER: 'NEW_ISSUER' } })).toThrow(
      new ConfigError('invalid setting OLD_ISSUER: renamed to NEW_ISSUER; set NEW_ISSUER instead (OLD_ISSUER is no longer read)'),
    );
    expect(parseEnv(issuer, { NEW_ISSUER: 'x' }, { renamed: { OLD_ISSUER: 'NEW_ISSUER' } })).toEqual({ NEW_ISSUER: 'x' });
  });
});

describe('refuseRenamed', () => {
  it('throws for each old name that is set, or adds to a collector', () => {
    const renamed = { A_OLD: 'A', B_OLD: 'B' };
    expect(() => refuseRenamed({ A: '1' }, renamed)).not.toThrow();
    expect(thrown(() => refuseRenamed({ A_OLD: '1', B_OLD: '' }, renamed)).problems).toEqual([
      'A_OLD: renamed to A; set A instead (A_OLD is no longer read)',
      'B_OLD: renamed to B; set B instead (B_OLD is no longer read)',
    ]);
    const problems = new ConfigProblems();
    refuseRenamed({ B_OLD: 'x' }, renamed, problems);
    expect(problems.has('B_OLD')).toBe(true);
  });
});

describe('ConfigProblems', () => {
  it('throws nothing when empty, and a single problem as its own line', () => {
    const problems = new ConfigProblems();
    expect(() => problems.throwIfAny()).not.toThrow();
    problems.sentence('A', 'A and B must be set when NODE_ENV=production');
    expect(() => problems.throwIfAny()).toThrow(new ConfigError('A and B must be set when NODE_ENV=production'));
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
