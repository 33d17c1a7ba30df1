import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigProblems, runConfigCheck } from '../src/index.ts';

function io() {
  const out = { stdout: '', stderr: '' };
  return { out, io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) } };
}

describe('runConfigCheck', () => {
  it('a valid configuration: one ok line with the summary on stdout, exit 0', () => {
    const { out, io: streams } = io();
    expect(runConfigCheck('auth', () => ['production', 'issuer https://id.example.com'], streams)).toBe(0);
    expect(out).toEqual({ stdout: 'auth: configuration ok (production; issuer https://id.example.com)\n', stderr: '' });
  });

  it('a refused one: the start-up text, one problem a line, on stderr, exit 1', () => {
    const { out, io: streams } = io();
    const load = () => {
      const problems = new ConfigProblems();
      problems.invalid('AUTH_ISUER', 'not a setting of auth; did you mean AUTH_ISSUER?');
      problems.requiredInProduction('AUTH_ISSUER', 'its public URL');
      problems.throwIfAny();
      return [];
    };
    expect(runConfigCheck('auth', load, streams)).toBe(1);
    expect(out).toEqual({
      stdout: '',
      stderr: 'auth: invalid settings:\n  AUTH_ISUER: not a setting of auth; did you mean AUTH_ISSUER?\n  AUTH_ISSUER must be set when NODE_ENV=production (its public URL)\n',
    });
  });

  it('does not swallow what is not a configuration problem', () => {
    const { io: streams } = io();
    expect(() => runConfigCheck('auth', () => { throw new TypeError('bug'); }, streams)).toThrow(TypeError);
    expect(() => runConfigCheck('auth', () => { throw new ConfigError('x'); }, streams)).not.toThrow();
  });
});
