import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closestName, ConfigError, ConfigProblems, editDistance, parseEnv, refuseUnknown } from '../src/index.ts';

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swapped neighbours as one each', () => {
    expect(editDistance('AUTH_ISUER', 'AUTH_ISSUER')).toBe(1);
    expect(editDistance('AUTH_ISSUER', 'AUTH_ISUER')).toBe(1);
    expect(editDistance('AUTH_PROT', 'AUTH_PORT')).toBe(1);
    expect(editDistance('AUTH_PART', 'AUTH_PORT')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('closestName', () => {
  const known = ['AUTH_ISSUER', 'AUTH_PORT', 'AUTH_REGULATION_MAX_RETRIES', 'AUTH_REGULATION_IP_MAX_RETRIES'];
  it('offers the nearest known name when it is close enough', () => {
    expect(closestName('AUTH_ISUER', known)).toBe('AUTH_ISSUER');
    expect(closestName('AUTH_REGULATON_MAX_RETRIES', known)).toBe('AUTH_REGULATION_MAX_RETRIES');
    expect(closestName('AUTH_PRT', known)).toBe('AUTH_PORT');
  });
  it('offers nothing for a name unlike any', () => {
    expect(closestName('AUTH_SOMETHING_ELSE', known)).toBeUndefined();
    expect(closestName('AUTH_X', [])).toBeUndefined();
  });
});

describe('refuseUnknown', () => {
  const variables = { app: 'auth', prefixes: ['AUTH_'], known: ['AUTH_ISSUER', 'AUTH_PORT'], foreign: ['AUTH_SERVER_NAME'] };

  it('reports every unknown variable of the app\'s prefixes, in order, with a suggestion when one is close', () => {
    const problems = new ConfigProblems();
    refuseUnknown({ AUTH_ISUER: 'x', PATH: '/bin', API_PORT: '1', AUTH_PORT: '1', AUTH_WHATEVER: 'y', AUTH_SERVER_NAME: 'a.example' }, variables, problems);
    expect(problemsOf(() => problems.throwIfAny())).toEqual(['AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?', 'AUTH_WHATEVER: not a setting of auth']);
  });

  it('leaves other prefixes and unset variables alone', () => {
    const problems = new ConfigProblems();
    refuseUnknown({ CLIENT_ISUER: 'x', AUTH_ISUER: undefined, AUTHISSUER: 'x' }, variables, problems);
    expect(problems.size).toBe(0);
  });
});

describe('parseEnv with strict', () => {
  const schema = z.object({ AUTH_ISSUER: z.string().default('http://localhost'), AUTH_SECRET: z.string().optional() });
  const strict = { app: 'auth', prefixes: ['AUTH_'] };

  it('refuses an unknown variable in the single-line form', () => {
    expect(() => parseEnv(schema, { AUTH_ISUER: 'https://id.example' }, { strict })).toThrow(
      new ConfigError('invalid setting AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?'),
    );
  });

  it('lists unknown and bad variables together, each once', () => {
    const strictSchema = z.object({ AUTH_PORT: z.coerce.number().int().max(65535).default(1) });
    expect(problemsOf(() => parseEnv(strictSchema, { AUTH_PORT: '70000', AUTH_PROT: '1', AUTH_OLD: 'x' }, { strict, renamed: { AUTH_OLD: 'AUTH_PORT' } }))).toEqual([
      'AUTH_OLD: renamed to AUTH_PORT; set AUTH_PORT instead (AUTH_OLD is no longer read)',
      'AUTH_PROT: not a setting of auth; did you mean AUTH_PORT?',
      'AUTH_PORT: Too big: expected number to be <=65535',
    ]);
  });

  it('knows the _FILE variable of each secret, and only of secrets', () => {
    const readFile = () => 's3cret\n';
    expect(parseEnv(schema, { AUTH_SECRET_FILE: '/run/secrets/s' }, { strict, secrets: ['AUTH_SECRET'], readFile })).toEqual({ AUTH_ISSUER: 'http://localhost', AUTH_SECRET: 's3cret' });
    expect(problemsOf(() => parseEnv(schema, { AUTH_ISSUER_FILE: '/x', AUTH_SECRETS_FILE: '/y' }, { strict, secrets: ['AUTH_SECRET'], readFile }))).toEqual([
      'AUTH_ISSUER_FILE: not a setting of auth; AUTH_ISSUER is not a secret and cannot be read from a file, set AUTH_ISSUER itself',
      'AUTH_SECRETS_FILE: not a setting of auth; did you mean AUTH_SECRET_FILE?',
    ]);
  });

  it('without strict, unknown variables are not looked at', () => {
    expect(parseEnv(schema, { AUTH_ISUER: 'x' })).toEqual({ AUTH_ISSUER: 'http://localhost' });
  });
});
