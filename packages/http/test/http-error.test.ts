import { describe, expect, it } from 'vitest';
import { HttpError } from '../src/index.ts';

type Code = 'invalid_request' | 'server_error';

class AppError extends HttpError<Code> {}

describe('HttpError', () => {
  it('carries status, stable code, message, headers and cause; exposes only under 500 by default', () => {
    const cause = new Error('disk full');
    const refused = new AppError(429, 'invalid_request', 'Slow down.', { headers: { 'Retry-After': '60' } });
    const failed = new AppError(500, 'server_error', 'Something went wrong.', { cause });
    expect([refused.status, refused.code, refused.message, refused.expose, refused.headers]).toEqual([429, 'invalid_request', 'Slow down.', true, { 'Retry-After': '60' }]);
    expect([failed.status, failed.code, failed.expose, failed.headers, failed.cause]).toEqual([500, 'server_error', false, {}, cause]);
  });

  it('lets an app expose a 5xx (503 with Retry-After) or hide a 4xx', () => {
    expect(new AppError(503, 'server_error', 'Try again.', { expose: true }).expose).toBe(true);
    expect(new AppError(400, 'invalid_request', 'x', { expose: false }).expose).toBe(false);
  });

  it('is an Error named after the subclass, and instanceof works along the chain', () => {
    const error = new AppError(400, 'invalid_request', 'Bad.');
    expect(error).toBeInstanceOf(AppError);
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AppError');
    expect(String(error)).toBe('AppError: Bad.');
  });
});
