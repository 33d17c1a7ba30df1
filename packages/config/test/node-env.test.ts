/** NODE_ENV: three modes, anything else refused with the mode meant. */
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigProblems, readNodeEnv } from '../src/index.ts';

/** The mode read and the report's lines. */
function read(value: string | undefined) {
  const problems = new ConfigProblems();
  const mode = readNodeEnv(value === undefined ? {} : { NODE_ENV: value }, problems);
  try {
    problems.throwIfAny();
  } catch (error) {
    if (error instanceof ConfigError) return { mode, problems: error.problems };
    throw error;
  }
  return { mode, problems: [] };
}

describe('readNodeEnv', () => {
  it('takes development, test and production; unset is development', () => {
    expect(read(undefined)).toEqual({ mode: 'development', problems: [] });
    expect(read('development')).toEqual({ mode: 'development', problems: [] });
    expect(read('test')).toEqual({ mode: 'test', problems: [] });
    expect(read('production')).toEqual({ mode: 'production', problems: [] });
  });

  it('refuses a misspelt production, naming it, and checks the rest as production', () => {
    expect(read('prod')).toEqual({ mode: 'production', problems: ['NODE_ENV=prod: not one of development, test, production; did you mean production?'] });
    expect(read('Production').problems).toEqual(['NODE_ENV=Production: not one of development, test, production; did you mean production?']);
    expect(read('producton').problems).toEqual(['NODE_ENV=producton: not one of development, test, production; did you mean production?']);
    expect(read('production-eu').problems).toEqual(['NODE_ENV=production-eu: not one of development, test, production; did you mean production?']);
  });

  it('refuses a misspelt development or test too, checking the rest under the mode meant', () => {
    expect(read('dev')).toEqual({ mode: 'development', problems: ['NODE_ENV=dev: not one of development, test, production; did you mean development?'] });
    expect(read('testing')).toEqual({ mode: 'test', problems: ['NODE_ENV=testing: not one of development, test, production; did you mean test?'] });
  });

  it('refuses a value close to no mode without a guess, and checks the rest as production (the strictest)', () => {
    expect(read('staging')).toEqual({ mode: 'production', problems: ['NODE_ENV=staging: not one of development, test, production'] });
    expect(read('pr')).toEqual({ mode: 'production', problems: ['NODE_ENV=pr: not one of development, test, production'] });
  });

  it('refuses an empty NODE_ENV: set, but to nothing', () => {
    expect(read('')).toEqual({ mode: 'production', problems: ['NODE_ENV is empty: set it to one of development, test, production, or leave it unset for development'] });
  });
});

describe('ConfigProblems merged', () => {
  it('adds another report\'s problems whole, once each: one alone, several listed', () => {
    const one = new ConfigProblems();
    one.sentence('A', 'A must be set');
    one.invalid('B', 'bad');
    let found: ConfigError['found'] = [];
    try {
      one.throwIfAny();
    } catch (error) {
      found = (error as ConfigError).found;
    }
    expect(found).toEqual([
      { setting: 'A', alone: 'A must be set', listed: 'A must be set' },
      { setting: 'B', alone: 'invalid setting B: bad', listed: 'B: bad' },
    ]);
    const merged = new ConfigProblems();
    merged.sentence('A', 'A must be set');
    for (const problem of found) merged.add(problem);
    expect(merged.size).toBe(2);
    const single = new ConfigProblems();
    single.add(found[1]!);
    single.add(found[1]!);
    expect(() => single.throwIfAny()).toThrow(new ConfigError('invalid setting B: bad'));
  });
});
