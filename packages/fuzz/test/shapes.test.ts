import { describe, expect, it } from 'vitest';
import { anyShape, checkResponse, cookieHeaders, fc, htmlErrorPage, oauthErrorJson, parseResponse, parserRejection, problemJson, problemXml, type FuzzRequest } from '../src/index.ts';

const GET: FuzzRequest = { method: 'GET', path: '/', headers: [] };
const HEAD: FuzzRequest = { method: 'HEAD', path: '/', headers: [] };

function answer(status: number, headers: Record<string, string>, body: string) {
  const head = [`HTTP/1.1 ${status} X`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${Buffer.byteLength(body)}`].join('\r\n');
  return parseResponse(Buffer.from(`${head}\r\n\r\n${body}`), 'GET');
}

describe('shape checks', () => {
  it('RFC 6749 error JSON', () => {
    expect(oauthErrorJson(answer(400, { 'Content-Type': 'application/json; charset=utf-8' }, '{"error":"invalid_request","error_description":"x"}'), GET)).toBeUndefined();
    expect(oauthErrorJson(answer(400, { 'Content-Type': 'application/json' }, '{"error":"bad\\"code"}'), GET)).toBe('`error` is not an RFC 6749 error code');
    expect(oauthErrorJson(answer(400, { 'Content-Type': 'application/json' }, '{"error":"x","error_description":5}'), GET)).toBe('`error_description` is not a string');
    expect(oauthErrorJson(answer(400, { 'Content-Type': 'text/html' }, '{}'), GET)).toBe('content-type text/html is not application/json');
  });

  it('RFC 9457 problem JSON and XML', () => {
    expect(problemJson(answer(404, { 'Content-Type': 'application/problem+json' }, '{"type":"x","title":"Not Found","status":404}'), GET)).toBeUndefined();
    expect(problemJson(answer(404, { 'Content-Type': 'application/problem+json' }, '{"title":"Not Found","status":400}'), GET)).toBe('problem status 400 is not the response status 404');
    expect(problemXml(answer(404, { 'Content-Type': 'application/problem+xml; charset=utf-8' }, '<?xml version="1.0"?>\n<problem xmlns="urn:ietf:rfc:7807"><status>404</status></problem>\n'), GET)).toBeUndefined();
    expect(problemXml(answer(404, { 'Content-Type': 'application/problem+xml' }, '<problem/>'), GET)).toBe('body is not a <problem> document');
  });

  it('HTML error page, HEAD answers, parser rejections and anyShape', () => {
    const page = htmlErrorPage(/<code id="error-code">[a-z_]+<\/code>/);
    expect(page(answer(403, { 'Content-Type': 'text/html; charset=utf-8' }, '<!doctype html><html><code id="error-code">csrf_failed</code></html>\n'), GET)).toBeUndefined();
    expect(page(answer(403, { 'Content-Type': 'text/html' }, '<p>no</p>'), GET)).toBe('body is not a whole HTML document');
    expect(page(answer(403, { 'Content-Type': 'text/html' }, ''), HEAD)).toBeUndefined();
    expect(parserRejection(answer(400, {}, ''), GET)).toBeUndefined();
    expect(parserRejection(answer(400, { 'X-Request-Id': '1' }, ''), GET)).toBe('the app answered (X-Request-Id is set)');
    expect(anyShape(problemJson, parserRejection)(answer(418, { 'Content-Type': 'text/plain' }, 'x'), GET)).toBe(
      'no error shape fits: content-type text/plain is not application/problem+json; status 418 is not a parser rejection',
    );
  });
});

describe('checkResponse', () => {
  it('reports 5xx, stack frames, source positions, internal paths and wrong shapes', () => {
    const frame = `    at handler (${process.cwd()}/src/app.ts:12:5)`;
    const leak = answer(404, { 'Content-Type': 'text/plain' }, `TypeError: boom\n${frame}`);
    const root = process.cwd().replace(/\/(?:apps|packages)\/[^/]+$/, '');
    expect(checkResponse(GET, leak, problemJson)).toEqual([
      `the body contains a stack frame (${frame.slice(0, 80)})`,
      'the body contains a stack frame (    at handler ()',
      'the body contains a source position (.ts:12)',
      'the body contains an error message (TypeError: )',
      `the body contains the internal path ${process.cwd()}`,
      `the body contains the internal path ${root}`,
      '404 in no contract shape: content-type text/plain is not application/problem+json',
    ]);
    expect(checkResponse(GET, answer(502, { 'Content-Type': 'application/problem+json' }, '{"title":"x","status":502}'), problemJson)).toEqual(['status 502']);
    expect(checkResponse(GET, answer(200, { 'Content-Type': 'text/plain' }, 'fine'), problemJson)).toEqual([]);
  });
});

describe('cookieHeaders', () => {
  it('keeps, drops and tampers with the real cookies, and reads them when drawn', () => {
    let cookies: [string, string][] = [['sid', 'AAAA'], ['sid.sig', 'SSSS']];
    const drawn = fc.sample(cookieHeaders(() => cookies), { numRuns: 300, seed: 3 });
    const lines = drawn.flat().map(([, value]) => value);
    expect(drawn.every((headers) => headers.every(([name]) => name === 'Cookie'))).toBe(true);
    expect(lines.some((l) => l.includes('sid=AAAA') && l.includes('sid.sig=SSSS'))).toBe(true);
    expect(lines.some((l) => /sid=(?!AAAA)/.test(l))).toBe(true);
    expect(drawn.some((headers) => headers.length === 2)).toBe(true);
    cookies = [['other', 'BBBB']];
    expect(fc.sample(cookieHeaders(() => cookies), { numRuns: 50, seed: 3 }).flat().some(([, v]) => v.includes('other='))).toBe(true);
  });
});
