import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isHtmlResponse, securityHeaders } from '../src/index.ts';
import { serve } from './serve.ts';

interface State {
  origins?: string[];
}

/** An error handler inside the headers, as in the apps: it writes the error page. */
async function errorPage(ctx: Koa.ParameterizedContext<State>, next: Koa.Next): Promise<void> {
  try {
    await next();
  } catch (error) {
    ctx.status = (error as { status?: number }).status ?? 500;
    ctx.type = 'html';
    ctx.body = '<p>error</p>';
  }
}

function handler(ctx: Koa.ParameterizedContext<State>): void {
  if (ctx.path === '/boom') throw new Error('unexpected');
  if (ctx.path === '/refused') ctx.throw(400);
  if (ctx.path === '/json') {
    ctx.body = { ok: true };
    return;
  }
  if (ctx.path === '/redirecting') ctx.state.origins = ['https://rp.example'];
  ctx.type = 'html';
  ctx.body = '<p>page</p>';
}

describe('securityHeaders', () => {
  let page: Awaited<ReturnType<typeof serve>>;
  let htmlOnly: Awaited<ReturnType<typeof serve>>;
  let bare: Awaited<ReturnType<typeof serve>>;
  let pagePolicyOnHtml: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    const app = new Koa<State>();
    app.use(
      securityHeaders<State>({
        csp: (ctx) => `default-src 'none'; form-action 'self'${(ctx.state.origins ?? []).map((o) => ` ${o}`).join('')}`,
        noStore: isHtmlResponse,
      }),
    );
    app.use(errorPage);
    app.use(handler);
    page = await serve(app);

    const api = new Koa<State>();
    api.use(securityHeaders({ csp: "default-src 'none'", cspOnly: true, appliesTo: isHtmlResponse }));
    api.use(errorPage);
    api.use(handler);
    htmlOnly = await serve(api);

    const htmlPolicy = new Koa<State>();
    htmlPolicy.use(securityHeaders({ csp: (ctx) => (isHtmlResponse(ctx) ? "default-src 'none'" : undefined) }));
    htmlPolicy.use(errorPage);
    htmlPolicy.use(handler);
    pagePolicyOnHtml = await serve(htmlPolicy);

    // Without an error handler inside: the error escapes to Koa, which drops every header it did not set.
    const escaping = new Koa<State>();
    escaping.use(securityHeaders({ csp: "default-src 'none'" }));
    escaping.use(handler);
    bare = await serve(escaping);
  });
  afterAll(async () => {
    await page.close();
    await htmlOnly.close();
    await bare.close();
    await pagePolicyOnHtml.close();
  });

  const headers = (r: Response) => ({
    csp: r.headers.get('content-security-policy'),
    nosniff: r.headers.get('x-content-type-options'),
    referrer: r.headers.get('referrer-policy'),
    frame: r.headers.get('x-frame-options'),
    cache: r.headers.get('cache-control'),
  });
  const PAGE = { csp: "default-src 'none'; form-action 'self'", nosniff: 'nosniff', referrer: 'no-referrer', frame: 'DENY', cache: 'no-store' };

  it.each([
    ['a page', '/', 200],
    ['a 4xx error page', '/refused', 400],
    ['a 5xx error page', '/boom', 500],
  ])('puts every header on %s', async (_name, path, status) => {
    const r = await fetch(`${page.url}${path}`);
    expect(r.status).toBe(status);
    expect(headers(r)).toEqual(PAGE);
  });

  it('builds the CSP per request from ctx.state', async () => {
    const r = await fetch(`${page.url}/redirecting`);
    expect(r.headers.get('content-security-policy')).toBe("default-src 'none'; form-action 'self' https://rp.example");
  });

  it('leaves Cache-Control to noStore (JSON is not a page here)', async () => {
    const r = await fetch(`${page.url}/json`);
    expect(headers(r)).toEqual({ ...PAGE, cache: null });
  });

  it('cspOnly + appliesTo: only the CSP, only on HTML, error pages included', async () => {
    const none = { csp: null, nosniff: null, referrer: null, frame: null, cache: null };
    expect(headers(await fetch(`${htmlOnly.url}/json`))).toEqual(none);
    for (const path of ['/', '/refused', '/boom']) {
      expect(headers(await fetch(`${htmlOnly.url}${path}`))).toEqual({ ...none, csp: "default-src 'none'" });
    }
  });

  it('a CSP function answering undefined sends no CSP, and still every other header', async () => {
    const rest = { nosniff: 'nosniff', referrer: 'no-referrer', frame: 'DENY', cache: null };
    expect(headers(await fetch(`${pagePolicyOnHtml.url}/json`))).toEqual({ ...rest, csp: null });
    for (const path of ['/', '/refused', '/boom']) {
      expect(headers(await fetch(`${pagePolicyOnHtml.url}${path}`))).toEqual({ ...rest, csp: "default-src 'none'" });
    }
  });

  it('sets the headers even when the inner middleware throws (Koa then answers without them: mount it outside the error handler)', async () => {
    const r = await fetch(`${bare.url}/boom`);
    expect(r.status).toBe(500);
    expect(r.headers.get('content-security-policy')).toBeNull();
  });
});

describe('isHtmlResponse', () => {
  const withType = (type: string | undefined) => ({ response: { get: () => type } }) as unknown as Parameters<typeof isHtmlResponse>[0];

  it.each([
    ['text/html', true],
    ['text/html; charset=utf-8', true],
    ['TEXT/HTML;charset=UTF-8', true],
    [' text/html ; charset=utf-8', true],
    ['application/json; charset=utf-8', false],
    ['text/htmlx', false],
    ['application/xhtml+xml', false],
    ['text/plain', false],
    ['', false],
    [undefined, false],
  ])('Content-Type %j is HTML: %s', (type, expected) => {
    expect(isHtmlResponse(withType(type))).toBe(expected);
  });
});
