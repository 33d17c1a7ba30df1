/**
 * Refused access decisions are audited (src/auth/access-denied-log.ts, docs/security.md V7.2.2):
 * a 401 and a 403 each write one `access.denied` line at info with the request's identifiers,
 * never the token or the query; an accepted request and a 404 write none.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@gatehouse/logging';
import { startApi, type ApiHarness } from '../support/api-harness.ts';
import { startLocalIssuer, type LocalIssuer } from '../support/local-issuer.ts';

const lines: Record<string, unknown>[] = [];
const destination = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

let issuer: LocalIssuer;
let api: ApiHarness;

beforeAll(async () => {
  issuer = await startLocalIssuer();
  api = await startApi({ issuer: issuer.issuer, logger: createLogger({ name: 'api', level: 'info', destination }) });
});
afterAll(async () => {
  await api.close();
  await issuer.close();
});

const audits = () => lines.filter((l) => l.audit === true);

describe('access.denied audit lines', () => {
  it('a bad token (401) is audited without the token or the query', async () => {
    lines.length = 0;
    const forged = await issuer.sign({}, {}, 'foreign');
    const r = await api.request('/api/movies/1?version=1', { token: forged, headers: { 'x-request-id': 'req-401' } });
    expect(r.status).toBe(401);
    expect(audits()).toEqual([
      expect.objectContaining({
        level: 30,
        audit: true,
        event: 'access.denied',
        msg: 'access.denied',
        request_id: 'req-401',
        method: 'GET',
        path: '/api/movies/1',
        status: 401,
        error_code: 'invalid_token',
        ip: expect.any(String),
      }),
    ]);
    expect(audits()[0]).not.toHaveProperty('subject');
    expect(JSON.stringify(lines)).not.toContain(forged);
    expect(JSON.stringify(lines)).not.toContain('version=1');
  });

  it('a missing scope (403) is audited with the accepted token’s client and subject', async () => {
    lines.length = 0;
    const readOnly = await issuer.sign({ scope: 'movies:read', sub: 'user-7', client_id: 'app-two' });
    const r = await api.request('/api/movies', {
      method: 'POST',
      token: readOnly,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-403' },
      body: JSON.stringify({ id: 9, title: 'x' }),
    });
    expect(r.status).toBe(403);
    expect(audits()).toEqual([
      expect.objectContaining({ event: 'access.denied', request_id: 'req-403', method: 'POST', path: '/api/movies', status: 403, error_code: 'insufficient_scope', client_id: 'app-two', subject: 'user-7' }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(readOnly);
  });

  it('an accepted request and a 404 write no audit line', async () => {
    lines.length = 0;
    const token = await issuer.sign();
    expect((await api.request('/api/movies', { token })).status).toBe(200);
    expect((await api.request('/api/movies/424242', { token })).status).toBe(404);
    expect(audits()).toEqual([]);
  });
});
