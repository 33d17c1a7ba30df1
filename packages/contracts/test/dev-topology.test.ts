import { describe, expect, it } from 'vitest';
import { DEFAULT_API_AUDIENCE, DEV_CLIENT_IDS, DEV_DEFAULTS, DEV_TOPOLOGY } from '../src/index.ts';

describe('DEV_TOPOLOGY', () => {
  it('puts each app on its documented port, URL and metrics port', () => {
    expect(DEV_TOPOLOGY).toEqual({
      auth: { port: 3000, url: 'http://localhost:3000', metricsPort: 9464 },
      api: { port: 4000, url: 'http://localhost:4000', metricsPort: 9465 },
      'app-one': { port: 3001, url: 'http://localhost:3001', metricsPort: 9466 },
      'app-two': { port: 3002, url: 'http://localhost:3002', metricsPort: 9467 },
    });
    expect(DEFAULT_API_AUDIENCE).toBe('http://localhost:4000/api');
  });

  it('names the dev clients that have a development secret', () => {
    expect(DEV_CLIENT_IDS).toEqual(['app-one', 'app-two']);
    for (const id of DEV_CLIENT_IDS) expect(DEV_DEFAULTS.clientSecrets[id]).toMatch(/not-for-production$/);
  });
});
