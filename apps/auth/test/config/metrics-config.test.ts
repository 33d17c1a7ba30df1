import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';

const dataDir = () => mkdtempSync(join(tmpdir(), 'gh-config-'));

describe('loadConfig: the metrics listener', () => {
  it('listens on loopback port 9464 by default, frozen', () => {
    const config = loadConfig({ AUTH_DATA_DIR: dataDir() });
    expect(config.metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(Object.isFrozen(config.metrics)).toBe(true);
  });

  it('reads AUTH_METRICS_HOST and AUTH_METRICS_PORT; 0 means a free port', () => {
    expect(loadConfig({ AUTH_DATA_DIR: dataDir(), AUTH_METRICS_HOST: '0.0.0.0', AUTH_METRICS_PORT: '9100' }).metrics).toEqual({ host: '0.0.0.0', port: 9100 });
    expect(loadConfig({ AUTH_DATA_DIR: dataDir(), AUTH_METRICS_PORT: '0' }).metrics.port).toBe(0);
  });

  it('names a bad value', () => {
    expect(() => loadConfig({ AUTH_DATA_DIR: dataDir(), AUTH_METRICS_PORT: 'ninety' })).toThrow(/^invalid setting AUTH_METRICS_PORT: /);
    expect(() => loadConfig({ AUTH_DATA_DIR: dataDir(), AUTH_METRICS_PORT: '70000' })).toThrow(/^invalid setting AUTH_METRICS_PORT: /);
    expect(() => loadConfig({ AUTH_DATA_DIR: dataDir(), AUTH_METRICS_HOST: '' })).toThrow(/^invalid setting AUTH_METRICS_HOST: /);
  });
});
