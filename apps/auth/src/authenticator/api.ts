/**
 * The web authenticator's API (JSON, device-signed; signed-request.ts has the scheme):
 * - POST /authenticator/api/register: a one-time enrollment code + device name + P-256 public key,
 *   signed by that key (proof of possession) → 201 with the device id. The code may be typed in
 *   any case, with spaces or dashes (devices/enrollment-code.ts); the signature is over its normal
 *   form. Wrong codes count against the client IP (regulation rule `enrollment-ip`): while that is
 *   spent the answer is 429 too_many_attempts with Retry-After, before the code is looked up;
 * - GET /authenticator/api/requests: the device's account's pending pushes (polling fallback);
 * - GET /authenticator/api/events: the same list as Server-Sent Events (`event: requests`),
 *   sent at once and on every change; `event: revoked` when the device was removed;
 * - POST /authenticator/api/requests/:id/answer: approve (with the number) or deny (push-answer.ts);
 * - POST /authenticator/api/requests/:id/report: "this wasn't me" after this device refused the
 *   push (push-report.ts) → 200 with where to change the password.
 * A pending request shows the client name, the browser's IP, its browser and system as a label
 * ("Chrome on Linux", views/browser-label.ts, said in the language of the authenticator's request:
 * its page's cookie or Accept-Language, "Chrome unter Linux"; the raw user agent is never shown), the
 * seconds left and the choices, never which choice is right.
 */
import type { Context } from 'koa';
import { AuthError, invalidRequest, tooManyAttempts } from '../errors/auth-error.ts';
import { normalizeDeviceName, type Device } from '../devices/device-store.ts';
import { enrollMessage, parsePublicKey, verifySignature, type Decision } from '../devices/signed-request.ts';
import { answerPush, type PushAnswerDeps } from '../push/push-answer.ts';
import type { PushTransaction } from '../push/push-store.ts';
import { openEventStream } from '../http/event-stream.ts';
import { browserLabel, sayBrowserLabel } from '../views/browser-label.ts';
import { requestLanguage, type PageLanguage } from '../i18n/page-language.ts';
import { reportPush, type PushReportDeps } from '../push/push-report.ts';
import { FORGOT_PASSWORD_PATH } from '../account/forgot-password.ts';
import type { HandlerServices } from '../interactions/deps.ts';
import { authenticateDevice, type DeviceAuthDeps } from './device-auth.ts';
import { readJsonObject, stringField } from './read-json.ts';

/** How often an open event stream re-reads the store (other instances, expiries) and sends a keep-alive. */
export const EVENTS_REFRESH_MS = 5_000;
/** An event stream ends after this long; the authenticator reconnects with a fresh signature. */
export const EVENTS_MAX_AGE_MS = 10 * 60_000;

const iso = (ms: number): string => new Date(ms).toISOString();

function requestView(push: PushTransaction, now: number, language: PageLanguage) {
  return {
    id: push.id,
    client_name: push.clientName,
    ip: push.ip,
    user_agent: push.userAgent,
    browser: sayBrowserLabel(browserLabel(push.userAgent), language),
    created_at: iso(push.createdAt),
    expires_at: iso(push.expiresAt),
    expires_in: Math.max(0, Math.ceil((push.expiresAt - now) / 1000)),
    choices: push.choices,
  };
}

type ListingDeps = Pick<HandlerServices, 'accounts' | 'pushes' | 'clock'>;

/** The device's pending requests; their browser labels in `language` (the authenticator page's). */
async function listing(deps: ListingDeps, device: Device, language: PageLanguage) {
  const [account, pending] = await Promise.all([deps.accounts.findById(device.accountId), deps.pushes.listPending(device.accountId)]);
  const now = deps.clock();
  return {
    device: { id: device.id, name: device.name, username: account?.username ?? '' },
    requests: pending.map((push) => requestView(push, now, language)),
  };
}

export type RegisterDeps = Pick<HandlerServices, 'enrollments' | 'accounts' | 'devices' | 'audit' | 'regulator'>;

export function createRegisterHandler(deps: RegisterDeps) {
  return async function register(ctx: Context): Promise<void> {
    const body = await readJsonObject(ctx);
    const code = stringField(body, 'code', 64);
    const name = normalizeDeviceName(stringField(body, 'name', 200));
    if (!name) throw invalidRequest('Field "name" must be 1-64 printable characters.');
    const publicKey = await parsePublicKey(body.public_key);
    if (!publicKey) throw invalidRequest('Field "public_key" must be an EC P-256 public JWK.');
    const signature = stringField(body, 'signature', 128);
    if (!(await verifySignature(publicKey, enrollMessage(code), signature))) {
      deps.audit.record('device.enrollment.refused', { reason: 'forged_signature', ip: ctx.ip });
      throw new AuthError(401, 'invalid_signature', 'The enrollment is not signed by the submitted key.');
    }
    const keys = [`enrollment-ip:${ctx.ip}`];
    const regulation = await deps.regulator.check(keys);
    if (regulation.state !== 'open') {
      deps.audit.record('device.enrollment.refused', { reason: 'too_many_attempts', ip: ctx.ip });
      throw tooManyAttempts(regulation.retryAfterSeconds);
    }
    const accountId = await deps.enrollments.consume(code);
    const account = accountId ? await deps.accounts.findById(accountId) : undefined;
    if (!account) {
      await deps.regulator.fail(keys);
      deps.audit.record('device.enrollment.refused', { reason: 'invalid_code', ip: ctx.ip });
      throw new AuthError(400, 'invalid_enrollment_code', 'This enrollment code is unknown, used or expired. Create a new one on the devices page.');
    }
    const device = await deps.devices.create({ accountId: account.id, name, publicKey });
    deps.audit.record('device.enrolled', { account_id: account.id, device_id: device.id, ip: ctx.ip });
    ctx.status = 201;
    ctx.body = { device_id: device.id, name: device.name, username: account.username };
  };
}

export type RequestsDeps = DeviceAuthDeps & ListingDeps;

export function createRequestsHandler(deps: RequestsDeps) {
  return async function requests(ctx: Context): Promise<void> {
    const device = await authenticateDevice(ctx, deps);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await listing(deps, device, requestLanguage(ctx));
  };
}

export type EventsDeps = RequestsDeps & Pick<HandlerServices, 'devices' | 'pushHub' | 'streams' | 'logger' | 'metrics'>;

export function createEventsHandler(deps: EventsDeps) {
  return async function events(ctx: Context): Promise<void> {
    const device = await authenticateDevice(ctx, deps);
    const language = requestLanguage(ctx);
    const stream = openEventStream(ctx);
    const streamClosed = deps.metrics.pushStreamOpened();

    let closed = false;
    let last = '';
    let chain = Promise.resolve();
    const send = () => {
      chain = chain
        .then(async () => {
          if (closed) return;
          if (!(await deps.devices.find(device.id))) {
            stream.write('event: revoked\ndata: {}\n\n');
            close();
            return;
          }
          const data = JSON.stringify(await listing(deps, device, language));
          if (data !== last && !closed) stream.write(`event: requests\ndata: ${data}\n\n`);
          last = data;
        })
        .catch((error: unknown) => {
          deps.logger.warn({ event: 'authenticator.stream_failed', err: error, device_id: device.id }, 'authenticator event stream failed');
          close();
        });
    };
    const unsubscribe = deps.pushHub.subscribe(device.accountId, send);
    // On shutdown: tell the authenticator when to reconnect (to another instance), then end.
    const unregister = deps.streams.add((retryMs) => {
      stream.write(`retry: ${retryMs}\n\n`);
      close();
    });
    const refresh = setInterval(() => {
      if (!closed) stream.write(': keep-alive\n\n');
      send();
    }, EVENTS_REFRESH_MS);
    const maxAge = setTimeout(() => close(), EVENTS_MAX_AGE_MS);
    function close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      unregister();
      clearInterval(refresh);
      clearTimeout(maxAge);
      streamClosed();
      stream.end();
    }
    stream.onClose(close);
    stream.write('retry: 3000\n\n');
    send();
  };
}

export function createAnswerHandler(deps: PushAnswerDeps) {
  return async function answer(ctx: Context): Promise<void> {
    const body = await readJsonObject(ctx);
    const transactionId = String(ctx.params.id ?? '');
    if (!/^[\w-]{1,64}$/.test(transactionId)) throw new AuthError(404, 'not_found', 'No such push request.');
    const deviceId = stringField(body, 'device_id', 64, /^[\w-]+$/);
    const decision = stringField(body, 'decision', 16);
    if (decision !== 'approve' && decision !== 'deny') throw invalidRequest('Field "decision" must be "approve" or "deny".');
    const number = body.number === undefined || body.number === '' ? '' : stringField(body, 'number', 2, /^\d{2}$/);
    if (decision === 'approve' && number === '') throw invalidRequest('Field "number" is required to approve.');
    const signature = stringField(body, 'signature', 128);
    const state = await answerPush(deps, { transactionId, deviceId, decision: decision as Decision, number, signature, ip: ctx.ip });
    ctx.body = { state };
  };
}

/** Where the answer to a report leads: the account page's password change, or a reset by e-mail. */
export const PASSWORD_CHANGE_PATH = '/account/security#password';

export type ReportDeps = PushReportDeps & { config: Pick<HandlerServices['config'], 'issuer'> };

export function createReportHandler(deps: ReportDeps) {
  return async function report(ctx: Context): Promise<void> {
    const body = await readJsonObject(ctx);
    const transactionId = String(ctx.params.id ?? '');
    if (!/^[\w-]{1,64}$/.test(transactionId)) throw new AuthError(404, 'not_found', 'No such push request.');
    const deviceId = stringField(body, 'device_id', 64, /^[\w-]+$/);
    const signature = stringField(body, 'signature', 128);
    await reportPush(deps, { transactionId, deviceId, signature, ip: ctx.ip });
    ctx.body = {
      reported: true,
      password_change_url: `${deps.config.issuer}${PASSWORD_CHANGE_PATH}`,
      password_reset_url: `${deps.config.issuer}${FORGOT_PASSWORD_PATH}`,
    };
  };
}
