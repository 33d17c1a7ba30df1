/**
 * Sends one {@link FuzzRequest} as raw bytes on a fresh TCP connection and reads the answer.
 * Rules:
 * - the request line and headers are written exactly as given (UTF-8), so odd paths, NUL bytes,
 *   unicode and repeated headers really reach the server (fetch and http.request would refuse or
 *   normalise them);
 * - the sender adds `Host` (unless the request has one), `Content-Length` for a body, and
 *   `Connection: close`; requests never carry their own framing headers, so a body is never
 *   shorter than announced and the server never waits for bytes that do not come;
 * - the whole answer is read until the server closes; a chunked body is de-chunked;
 * - no answer within `timeoutMs` (or a connection closed before any byte) is an error: the
 *   process stopped answering.
 */
import { connect } from 'node:net';

/** One HTTP request as it goes on the wire. */
export interface FuzzRequest {
  /** Sent as written, e.g. `GET`, `get`, `PROPFIND`. */
  readonly method: string;
  /** The raw request target: path and query, possibly with encoded or odd bytes. */
  readonly path: string;
  /** Header lines in order; a name may repeat. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: string | Buffer;
}

/** The answer, as read from the wire. */
export interface FuzzResponse {
  readonly status: number;
  /** Header values by lower-case name, in order of appearance. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  /** The first value of a header (lower-case name), or undefined. */
  header(name: string): string | undefined;
  readonly body: Buffer;
  /** The body as UTF-8. */
  readonly text: string;
}

/** Header names the sender sets itself; request arbitraries must not produce them. */
export const FRAMING_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'connection', 'upgrade', 'expect', 'te', 'keep-alive']);

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(at, lineEnd).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Parses a complete HTTP/1.1 response (exported for tests). */
export function parseResponse(raw: Buffer, method: string): FuzzResponse {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`incomplete response head: ${JSON.stringify(raw.subarray(0, 200).toString('latin1'))}`);
  const lines = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const statusLine = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!statusLine) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const status = Number(statusLine[1]);
  const headers = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const list = headers.get(name) ?? [];
    list.push(line.slice(colon + 1).trim());
    headers.set(name, list);
  }
  let body = raw.subarray(headEnd + 4);
  const noBody = method.toUpperCase() === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);
  if (noBody) body = Buffer.alloc(0);
  else if (headers.get('transfer-encoding')?.some((v) => v.toLowerCase().includes('chunked'))) body = dechunk(body);
  else {
    const length = Number(headers.get('content-length')?.[0]);
    if (Number.isInteger(length) && length >= 0) body = body.subarray(0, length);
  }
  return {
    status,
    headers,
    header: (name) => headers.get(name.toLowerCase())?.[0],
    body,
    get text() {
      return body.toString('utf8');
    },
  };
}

/** Writes the request as bytes: request line, headers, blank line, body. */
export function serializeRequest(request: FuzzRequest, host: string): Buffer {
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const lines = [`${request.method} ${request.path} HTTP/1.1`];
  if (!request.headers.some(([name]) => name.toLowerCase() === 'host')) lines.push(`Host: ${host}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  lines.push('Connection: close', '', '');
  const head = Buffer.from(lines.join('\r\n'), 'utf8');
  return body === undefined ? head : Buffer.concat([head, body]);
}

/** Sends the request to `baseUrl` (`http://127.0.0.1:<port>`) and resolves with the answer. */
export function sendRaw(baseUrl: string, request: FuzzRequest, options: { timeoutMs?: number } = {}): Promise<FuzzResponse> {
  const url = new URL(baseUrl);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise<FuzzResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      // A server that answers early (413) and closes may reset the connection while the body is
      // still being written: what it answered is still the answer.
      if (raw.length > 0) {
        try {
          resolve(parseResponse(raw, request.method));
        } catch (parseError) {
          reject(parseError as Error);
        }
        return;
      }
      reject(error ?? new Error(`${request.method} ${request.path.slice(0, 200)}: the connection closed without an answer`));
    };
    const timer = setTimeout(() => finish(new Error(`${request.method} ${request.path.slice(0, 200)}: no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (error) => finish(error));
    socket.on('connect', () => socket.write(serializeRequest(request, url.host)));
  });
}
