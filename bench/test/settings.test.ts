import { describe, expect, it } from 'vitest';
import { readSettings, SettingsError } from '../src/settings.ts';

const selectors = ['dev', 'read', 'refresh', 'cc'];
const groups = { token: ['refresh', 'cc'] };

describe('readSettings', () => {
  it('runs every part with the defaults when nothing is set', () => {
    const settings = readSettings({}, selectors, groups);
    expect([...settings.only]).toEqual(selectors);
    expect(settings).toMatchObject({ seconds: 2, rounds: 8, infoRounds: 2, connections: 32, tokenConnections: 16, logins: 48, loginConcurrency: 8, loginWarmups: 4, build: true, keep: false });
  });

  it('reads BENCH_ONLY as a comma list of selectors and groups', () => {
    expect([...readSettings({ BENCH_ONLY: ' read , token' }, selectors, groups).only]).toEqual(['read', 'refresh', 'cc']);
  });

  it('refuses an unknown part and a number that is not a positive integer, naming each variable', () => {
    const read = () => readSettings({ BENCH_ONLY: 'reed', BENCH_ROUNDS: '0', BENCH_SECONDS: '1.5' }, selectors, groups);
    expect(read).toThrow(SettingsError);
    expect(read).toThrow(
      [
        'BENCH_ONLY names an unknown part "reed" (known: dev, read, refresh, cc, token)',
        'BENCH_SECONDS must be a positive integer, not "1.5"',
        'BENCH_ROUNDS must be a positive integer, not "0"',
      ].join('\n'),
    );
  });
});
