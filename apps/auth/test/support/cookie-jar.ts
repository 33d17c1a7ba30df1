/**
 * A minimal cookie-keeping HTTP client for tests and the test server: it stores Set-Cookie
 * values per name (ignoring path and domain: every test talks to one loopback host) and never
 * follows redirects, so each hop can be asserted.
 */
export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  json<T = Record<string, unknown>>(): T;
  location: string | null;
}

export class CookieJar {
  readonly cookies = new Map<string, string>();
  /** Headers sent with every request of this jar (e.g. X-Forwarded-For behind a trusted proxy). */
  readonly defaultHeaders: Record<string, string>;

  constructor(defaultHeaders: Record<string, string> = {}) {
    this.defaultHeaders = defaultHeaders;
  }

  store(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || attributes.some((a) => /^\s*max-age=0\b/i.test(a));
      if (!value || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export async function request(
  jar: CookieJar,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...jar.defaultHeaders, ...init.headers };
  const cookie = jar.header();
  if (cookie) headers.cookie = cookie;
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body, redirect: 'manual' });
  jar.store(response.headers);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: <T,>() => JSON.parse(text) as T,
    location: response.headers.get('location'),
  };
}

export const form = (fields: Record<string, string>): { headers: Record<string, string>; body: string } => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

export const jsonBody = (fields: Record<string, unknown>): { headers: Record<string, string>; body: string } => ({
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body: JSON.stringify(fields),
});
