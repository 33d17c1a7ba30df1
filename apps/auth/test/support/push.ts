import { randomBytes, webcrypto } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { CookieJar, form, request, type HttpResponse, type TestAuthServer } from './index.ts';
import { jsonBody } from './index.ts';
import { authorizeUrl, signIn, uidOf, type TestUser } from './flow.ts';
import { normalizeEnrollmentCode } from '../../src/devices/signed-request.ts';

export const CONTEXT = 'gatehouse-authenticator-v1';

type KeyPair = webcrypto.CryptoKeyPair;

export async function newKeyPair(): Promise<KeyPair> {
  return webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']) as Promise<KeyPair>;
}

export async function signWith(key: webcrypto.CryptoKey, message: string): Promise<string> {
  const signature = await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(message, 'utf8'));
  return Buffer.from(signature).toString('base64url');
}

export async function publicJwk(pair: KeyPair): Promise<Record<string, unknown>> {
  const jwk = await webcrypto.subtle.exportKey('jwk', pair.publicKey);
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

/** The web authenticator of the issue, in Node: WebCrypto P-256 keys and the signed-request scheme. */
export class SoftwareAuthenticator {
  readonly server: TestAuthServer;
  readonly keys: KeyPair;
  readonly deviceId: string;
  readonly clock: () => number;

  constructor(server: TestAuthServer, keys: KeyPair, deviceId: string, clock: () => number) {
    this.server = server;
    this.keys = keys;
    this.deviceId = deviceId;
    this.clock = clock;
  }

  static async register(server: TestAuthServer, code: string, name = 'Test phone', clock: () => number = Date.now, headers: Record<string, string> = {}) {
    const keys = await newKeyPair();
    const res = await request(new CookieJar(headers), `${server.issuer}/authenticator/api/register`, {
      method: 'POST',
      ...jsonBody({ code, name, public_key: await publicJwk(keys), signature: await signWith(keys.privateKey, `${CONTEXT}.enroll.${normalizeEnrollmentCode(code)}`) }),
    });
    const authenticator = res.status === 201 ? new SoftwareAuthenticator(server, keys, res.json<{ device_id: string }>().device_id, clock) : undefined;
    return { res, authenticator };
  }

  async signedQuery(overrides: { ts?: string; nonce?: string; key?: webcrypto.CryptoKey } = {}): Promise<string> {
    const ts = overrides.ts ?? String(this.clock());
    const nonce = overrides.nonce ?? randomBytes(18).toString('base64url');
    const sig = await signWith(overrides.key ?? this.keys.privateKey, `${CONTEXT}.list.${this.deviceId}.${ts}.${nonce}`);
    return new URLSearchParams({ device_id: this.deviceId, ts, nonce, sig }).toString();
  }

  async list(query?: string): Promise<HttpResponse> {
    return request(new CookieJar(), `${this.server.issuer}/authenticator/api/requests?${query ?? (await this.signedQuery())}`, { headers: { accept: 'application/json' } });
  }

  async answerBody(id: string, decision: 'approve' | 'deny', number: string, key = this.keys.privateKey) {
    return { device_id: this.deviceId, decision, number, signature: await signWith(key, `${CONTEXT}.answer.${id}.${decision}.${number}.${this.deviceId}`) };
  }

  async send(id: string, body: Record<string, unknown>): Promise<HttpResponse> {
    return request(new CookieJar(), `${this.server.issuer}/authenticator/api/requests/${id}/answer`, { method: 'POST', ...jsonBody(body) });
  }

  async answer(id: string, decision: 'approve' | 'deny', number: string | number): Promise<HttpResponse> {
    return this.send(id, await this.answerBody(id, decision, String(number)));
  }

  /** "This wasn't me" for a push this device refused, signed (or signed with `key`). */
  async report(id: string, key = this.keys.privateKey): Promise<HttpResponse> {
    const body = { device_id: this.deviceId, signature: await signWith(key, `${CONTEXT}.report.${id}.${this.deviceId}`) };
    return request(new CookieJar(), `${this.server.issuer}/authenticator/api/requests/${id}/report`, { method: 'POST', ...jsonBody(body) });
  }
}

let nextIp = 1;
/** A browser with its own client IP (the server trusts X-Forwarded-For in these suites). */
export const browser = (): CookieJar => new CookieJar({ 'x-forwarded-for': `198.51.100.${nextIp++}`, 'user-agent': 'Mozilla/5.0 (Test) Browser/1.0' });

/** Signs `user` in with password + TOTP (an SSO session in `jar`), then enrolls a software authenticator. */
export async function enrollDevice(server: TestAuthServer, user: TestUser, clock: () => number, name = 'Test phone') {
  const jar = browser();
  const done = await signIn(server, jar, user, authorizeUrl(server), clock());
  if (done.status !== 302) throw new Error(`sign-in answered ${done.status}`);
  const enrollment = await request(jar, `${server.issuer}/authenticator/devices/enroll`, { method: 'POST', ...jsonBody({}) });
  if (enrollment.status !== 201) throw new Error(`enroll answered ${enrollment.status}: ${enrollment.text}`);
  const body = enrollment.json<{ enrollment_code: string; recovery_codes?: string[] }>();
  const { authenticator, res } = await SoftwareAuthenticator.register(server, body.enrollment_code, name, clock);
  if (!authenticator) throw new Error(`register answered ${res.status}: ${res.text}`);
  return { jar, authenticator, recoveryCodes: body.recovery_codes ?? [] };
}

/** A new login up to the second-factor step; returns the browser and the interaction uid. */
export async function passwordStep(server: TestAuthServer, user: TestUser, jar = browser(), url = authorizeUrl(server)) {
  const page = await request(jar, url);
  const uid = uidOf(page.text);
  const res = await request(jar, `${server.issuer}/login`, { method: 'POST', ...form({ uid, username: user.username, password: user.password }) });
  if (res.status !== 200) throw new Error(`login answered ${res.status}`);
  return { jar, uid, page: res };
}

export interface Waiting {
  status: string;
  state: string;
  number: number;
  poll: string;
  expires_in: number;
  methods: string[];
}

/** Chooses push on the second-factor step (JSON). */
export async function sendPush(server: TestAuthServer, jar: CookieJar): Promise<HttpResponse> {
  return request(jar, `${server.issuer}/mfa/verify`, { method: 'POST', ...jsonBody({ method: 'push' }) });
}

export const pushId = (waiting: Waiting): string => waiting.poll.split('/').pop()!;

export async function poll(server: TestAuthServer, jar: CookieJar, waiting: Waiting, html = false): Promise<HttpResponse> {
  return request(jar, `${server.issuer}${waiting.poll}`, { headers: { accept: html ? 'text/html' : 'application/json' } });
}

/** A logger whose lines are kept as parsed objects, to assert audit events. */
export function captureLogger() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      const text = chunk.toString();
      raw.push(text);
      for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: 'debug' }, stream);
  return { logger, lines, raw, audits: (event: string) => lines.filter((l) => l.event === event) };
}

/** Reads a fetch response as Server-Sent Events: each call resolves to the next `event:` + `data:` pair. */
export function readEvents(response: Response): () => Promise<{ event: string; data: Record<string, unknown> }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return async () => {
    for (;;) {
      const match = /event: (\w+)\ndata: (.*)\n\n/.exec(buffer);
      if (match) {
        buffer = buffer.slice(match.index + match[0].length);
        return { event: match[1]!, data: JSON.parse(match[2]!) as Record<string, unknown> };
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += decoder.decode(value, { stream: true });
    }
  };
}
