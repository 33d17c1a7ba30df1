/**
 * The form-page helper (src/http/form-page.ts) in a Koa app on a loopback port, behind an outer
 * middleware standing for the error middleware: which refusals the page answers, which go on,
 * and what `refused` sees.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, invalidRequest, tooManyAttempts } from '../../src/errors/auth-error.ts';
import { formPage } from '../../src/http/form-page.ts';

/** What each request did, in order: `read`, `run`, `refused:<code>`, `page:<code>`. */
const seen: string[] = [];

/** The request names the outcome of each part: ?read=refuse, ?run=<refuse|throttle|crash|ok>, ?page=<show|pass>. */
function handler(ctx: Koa.Context): Promise<void> {
  const q = ctx.query as Record<string, string | undefined>;
  return formPage(ctx, {
    async read() {
      seen.push('read');
      if (q.read === 'refuse') throw invalidRequest('Unreadable.');
      return { form: 'the form' };
    },
    async run(request) {
      seen.push('run');
      if (q.run === 'refuse') throw new AuthError(401, 'invalid_code', 'Wrong code.');
      if (q.run === 'throttle') throw tooManyAttempts(42);
      if (q.run === 'crash') throw new Error('database gone');
      ctx.body = { done: request.form };
    },
    refused(error) {
      seen.push(`refused:${error.code}`);
    },
    async page(error, request) {
      seen.push(`page:${error.code}`);
      if (q.page === 'pass') return false;
      ctx.status = error.status;
      ctx.body = { page: request.form, error: error.code };
      return true;
    },
  });
}

let server: ReturnType<typeof createServer>;
let url = '';

beforeAll(async () => {
  const app = new Koa();
  app.silent = true;
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      ctx.status = error instanceof AuthError ? error.status : 500;
      ctx.body = { middleware: error instanceof AuthError ? error.code : 'server_error' };
    }
  });
  app.use(handler);
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function post(query: string) {
  seen.length = 0;
  const response = await fetch(`${url}/?${query}`, { method: 'POST' });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as unknown, seen: [...seen] };
}

describe('formPage', () => {
  it('answers the work when nothing is refused', async () => {
    expect(await post('run=ok')).toEqual({ status: 200, retryAfter: null, body: { done: 'the form' }, seen: ['read', 'run'] });
  });

  it('shows a refusal of the work on the page, after `refused` saw it', async () => {
    expect(await post('run=refuse')).toEqual({
      status: 401,
      retryAfter: null,
      body: { page: 'the form', error: 'invalid_code' },
      seen: ['read', 'run', 'refused:invalid_code', 'page:invalid_code'],
    });
  });

  it('sets the refusal headers whoever answers it', async () => {
    expect(await post('run=throttle')).toMatchObject({ status: 429, retryAfter: '42', body: { page: 'the form', error: 'too_many_attempts' } });
    expect(await post('run=throttle&page=pass')).toEqual({
      status: 429,
      retryAfter: '42',
      body: { middleware: 'too_many_attempts' },
      seen: ['read', 'run', 'refused:too_many_attempts', 'page:too_many_attempts'],
    });
  });

  it('hands a refusal the page does not show, and one while reading, to the error middleware', async () => {
    expect(await post('run=refuse&page=pass')).toEqual({
      status: 401,
      retryAfter: null,
      body: { middleware: 'invalid_code' },
      seen: ['read', 'run', 'refused:invalid_code', 'page:invalid_code'],
    });
    expect(await post('read=refuse')).toEqual({ status: 400, retryAfter: null, body: { middleware: 'invalid_request' }, seen: ['read'] });
  });

  it('never shows anything but an AuthError: the rest is a 500 of the error middleware', async () => {
    expect(await post('run=crash')).toEqual({ status: 500, retryAfter: null, body: { middleware: 'server_error' }, seen: ['read', 'run'] });
  });
});
