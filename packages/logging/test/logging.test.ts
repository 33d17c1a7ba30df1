import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { audit, createLogger, REDACT_PATHS } from '../src/index.ts';

function collectingLogger(level = 'debug') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  // pino writes synchronously to a plain Writable, so a line is there once the call returns.
  return { logger: createLogger({ name: 'test', level, destination }), lines };
}

const SECRET = 'S3CRET-value-that-must-not-leak';

const SECRET_FIELDS = [
  'password',
  'passwordHash',
  'secret',
  'client_secret',
  'clientSecret',
  'totpSecret',
  'token',
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'idToken',
  'code',
  'code_verifier',
  'codeVerifier',
  'enrollment_code',
  'recovery_codes',
  'state',
  'nonce',
  'authorization',
  'cookie',
  'cookies',
];

describe('createLogger redaction', () => {
  it.each(SECRET_FIELDS)('removes a top-level `%s` and keeps the rest of the line', (field) => {
    const { logger, lines } = collectingLogger();
    logger.info({ [field]: SECRET, account_id: 'acc-1' }, 'message');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty(field);
    expect(lines[0]).toMatchObject({ name: 'test', level: 30, account_id: 'acc-1', msg: 'message' });
    expect(JSON.stringify(lines[0])).not.toContain(SECRET);
  });

  it.each(SECRET_FIELDS)('removes `%s` one level down (under any top-level field)', (field) => {
    const { logger, lines } = collectingLogger();
    logger.info({ body: { [field]: SECRET, username: 'alice' } }, 'message');
    expect(lines[0]!.body).toEqual({ username: 'alice' });
  });

  it('removes the Authorization and Cookie request headers and the Set-Cookie response header', () => {
    const { logger, lines } = collectingLogger();
    logger.info(
      {
        req: { method: 'GET', headers: { authorization: `Bearer ${SECRET}`, cookie: `sid=${SECRET}`, accept: 'text/html' } },
        res: { statusCode: 200, headers: { 'set-cookie': `sid=${SECRET}`, 'content-type': 'text/html' } },
        upstream: { headers: { authorization: `Basic ${SECRET}`, cookie: SECRET, 'set-cookie': SECRET } },
      },
      'request',
    );
    expect(JSON.stringify(lines[0])).not.toContain(SECRET);
    expect(lines[0]).toMatchObject({
      req: { method: 'GET', headers: { accept: 'text/html' } },
      res: { statusCode: 200, headers: { 'content-type': 'text/html' } },
      upstream: { headers: {} },
    });
  });

  it('removes a secret carried by an error (err.code, err.token)', () => {
    const { logger, lines } = collectingLogger();
    const error = Object.assign(new Error('refused'), { code: SECRET, token: SECRET });
    logger.error({ err: error }, 'failed');
    expect(JSON.stringify(lines[0])).not.toContain(SECRET);
    expect((lines[0]!.err as { message: string }).message).toBe('refused');
  });

  it('never changes the objects passed to it', () => {
    const { logger, lines } = collectingLogger();
    const body = { token: SECRET, username: 'alice', headers: { authorization: SECRET, accept: 'text/html' } };
    const fields = { password: SECRET, body };
    logger.info(fields, 'message');
    expect(fields).toEqual({ password: SECRET, body: { token: SECRET, username: 'alice', headers: { authorization: SECRET, accept: 'text/html' } } });
    expect(lines[0]).toMatchObject({ body: { username: 'alice', headers: { accept: 'text/html' } } });
    expect(JSON.stringify(lines[0])).not.toContain(SECRET);
  });

  it("removes a secret from a child logger's bindings", () => {
    const { logger, lines } = collectingLogger();
    logger.child({ token: SECRET, request_id: 'r-1' }).info({ account_id: 'acc-1' }, 'message');
    expect(JSON.stringify(lines[0])).not.toContain(SECRET);
    expect(lines[0]).toMatchObject({ request_id: 'r-1', account_id: 'acc-1' });
  });

  it('keeps fields two levels down that only share a name with a secret field', () => {
    const { logger, lines } = collectingLogger();
    logger.info({ outer: { inner: { code: 'kept-at-depth-three' } } }, 'message');
    expect(lines[0]).toMatchObject({ outer: { inner: { code: 'kept-at-depth-three' } } });
  });

  it('covers every field of the list at both depths, and the headers', () => {
    for (const field of SECRET_FIELDS) expect(REDACT_PATHS).toEqual(expect.arrayContaining([field, `*.${field}`]));
    expect(REDACT_PATHS).toEqual(expect.arrayContaining(['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]']));
  });

  it('honours the level', () => {
    const { logger, lines } = collectingLogger('warn');
    logger.info('hidden');
    logger.warn('shown');
    expect(lines.map((l) => l.msg)).toEqual(['shown']);
  });
});

describe('audit', () => {
  type Event = 'login.success' | 'login.failure';

  it('writes one info line with audit: true, the stable event name as event and message, and the fields', () => {
    const { logger, lines } = collectingLogger();
    audit<Event>(logger, 'login.success', { account_id: 'acc-1', ip: '127.0.0.1', remembered: false, attempts: 2, missing: undefined });
    expect(lines).toHaveLength(1);
    const { time, pid, hostname, ...line } = lines[0]!;
    expect([typeof time, typeof pid, typeof hostname]).toEqual(['number', 'number', 'string']);
    expect(line).toEqual({ level: 30, name: 'test', audit: true, event: 'login.success', account_id: 'acc-1', ip: '127.0.0.1', remembered: false, attempts: 2, msg: 'login.success' });
  });

  it('still removes a secret passed by mistake', () => {
    const { logger, lines } = collectingLogger();
    audit<Event>(logger, 'login.failure', { account_id: 'acc-1', password: SECRET });
    expect(JSON.stringify(lines[0])).not.toContain(SECRET);
    expect(lines[0]).toMatchObject({ event: 'login.failure', account_id: 'acc-1' });
  });
});
