/**
 * Test helpers for the apps' host-header tests (`@gatehouse/http/testing`).
 * - {@link rawRequest} sends a request with node:http rather than fetch, so a test can set any
 *   `Host`, send `X-Forwarded-*` headers and use an absolute-form request target
 *   (`GET http://evil.example/path HTTP/1.1`), none of which fetch allows;
 * - the answer keeps every header line as sent and the whole body as text, so a test can look
 *   for a foreign host name anywhere in it.
 */
import { request } from 'node:http';

export interface RawResponse {
  readonly status: number;
  /** Every header line, `name: value`, lower-case names, in the order received. */
  readonly headerLines: readonly string[];
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export interface RawRequest {
  readonly method?: string;
  /** The request target: a path (`/x?y`) or an absolute URL (absolute-form). */
  readonly target: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Sends one request to `server` (an `http://host:port` origin) and reads the whole answer. */
export function rawRequest(server: string, options: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(server);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, method: options.method ?? 'GET', path: options.target, headers: { ...options.headers }, setHost: options.headers?.host === undefined, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headerLines: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) headerLines.push(`${res.rawHeaders[i]!.toLowerCase()}: ${res.rawHeaders[i + 1]}`);
          resolve({ status: res.statusCode ?? 0, headerLines, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The ways a client can try to make an app believe it is reached at `host`. */
export function foreignHostVariants(host: string): readonly { readonly name: string; readonly headers: Readonly<Record<string, string>>; readonly absoluteForm: boolean }[] {
  return [
    { name: `Host: ${host}`, headers: { host }, absoluteForm: false },
    { name: `X-Forwarded-Host: ${host}`, headers: { 'x-forwarded-host': host, 'x-forwarded-proto': 'http' }, absoluteForm: false },
    { name: `Forwarded: host=${host}`, headers: { forwarded: `host=${host};proto=http` }, absoluteForm: false },
    { name: `absolute-form target http://${host}/…`, headers: {}, absoluteForm: true },
    { name: 'all at once', headers: { host, 'x-forwarded-host': host, 'x-forwarded-proto': 'http', forwarded: `host=${host};proto=http` }, absoluteForm: true },
  ];
}
