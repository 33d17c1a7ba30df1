/**
 * An authenticator's answer to a push. Rules, checked in this order:
 * - the device must exist and the signature over (transaction, decision, number, device) must
 *   verify with its key, else 401 invalid_signature (forged or unknown device);
 * - the push must exist (404) and belong to the device's account, else 403 device_not_allowed:
 *   a device of another user can never decide someone's login;
 * - the push must still be PENDING: an expired one is 410 push_expired, a decided one 409
 *   push_already_decided (a replayed approval changes nothing);
 * - an approval must carry the number shown on the login page; a wrong number is refused
 *   (400 number_mismatch) and ends the push as REJECTED with the refusal `number_mismatch`, so
 *   the choices cannot be tried in turn and the login page says what happened (a deny is kept
 *   as `denied`);
 * - every refusal is audited with its reason; a denial is audited and never counts toward the
 *   password lockout.
 */
import { AuthError } from '../errors/auth-error.ts';
import { safeEqual } from '../crypto/safe-equal.ts';
import type { AuditFields } from '../audit/audit-events.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { DeviceStore } from '../devices/device-store.ts';
import { answerMessage, verifySignature, type Decision } from '../devices/signed-request.ts';
import type { PushHub } from './push-hub.ts';
import type { PushState, PushStore } from './push-store.ts';
import type { AuthMetrics } from '../metrics/auth-metrics.ts';

export interface PushAnswerDeps {
  devices: DeviceStore;
  pushes: PushStore;
  pushHub: PushHub;
  audit: Auditor;
  clock: () => number;
  metrics: AuthMetrics;
}

export interface PushAnswer {
  transactionId: string;
  deviceId: string;
  decision: Decision;
  /** The number the user picked ('' allowed for a denial). */
  number: string;
  signature: string;
  ip: string;
}

export async function answerPush(deps: PushAnswerDeps, answer: PushAnswer): Promise<PushState> {
  const refuse = (reason: AuditFields['push.answer.refused']['reason'], error: AuthError, accountId?: string): never => {
    deps.audit.record('push.answer.refused', { reason, push_id: answer.transactionId, device_id: answer.deviceId, account_id: accountId, ip: answer.ip });
    throw error;
  };
  const device = await deps.devices.find(answer.deviceId);
  const message = answerMessage(answer.transactionId, answer.decision, answer.number, answer.deviceId);
  if (!device || !(await verifySignature(device.publicKey, message, answer.signature))) {
    refuse(device ? 'forged_signature' : 'unknown_device', new AuthError(401, 'invalid_signature', 'The answer is not signed by an enrolled device.'), device?.accountId);
  }
  const transaction = await deps.pushes.find(answer.transactionId);
  if (!transaction) throw new AuthError(404, 'not_found', 'No such push request.');
  if (transaction.accountId !== device!.accountId) {
    refuse('foreign_device', new AuthError(403, 'device_not_allowed', 'This device is not enrolled for the account of this sign-in.'), device!.accountId);
  }
  if (transaction.state === 'TIMEOUT') {
    refuse('expired', new AuthError(410, 'push_expired', 'This sign-in request has expired.'), transaction.accountId);
  }
  if (transaction.state !== 'PENDING') {
    refuse('already_decided', new AuthError(409, 'push_already_decided', 'This sign-in request was already answered.'), transaction.accountId);
  }
  await deps.devices.touch(device!.id, deps.clock());

  if (answer.decision === 'approve' && !safeEqual(answer.number, String(transaction.number))) {
    if (await deps.pushes.decide(transaction.id, 'REJECTED', device!.id, 'number_mismatch')) {
      deps.pushHub.notify(transaction.accountId);
      deps.metrics.secondFactor('push', 'denied');
    }
    refuse(
      'number_mismatch',
      new AuthError(400, 'number_mismatch', `You picked ${answer.number}, but the sign-in page showed another number, so the sign-in was refused. If you are signing in, send a new push and pick the number shown there.`),
      transaction.accountId,
    );
  }
  const state = answer.decision === 'approve' ? 'APPROVED' : 'REJECTED';
  if (!(await deps.pushes.decide(transaction.id, state, device!.id, 'denied'))) {
    // Decided or expired between the read and the write (a racing answer).
    refuse('already_decided', new AuthError(409, 'push_already_decided', 'This sign-in request was already answered.'), transaction.accountId);
  }
  deps.pushHub.notify(transaction.accountId);
  deps.audit.record(state === 'APPROVED' ? 'push.approved' : 'push.denied', { push_id: transaction.id, device_id: device!.id, account_id: transaction.accountId });
  // An approval is counted when it completes the login (mfa-verify.ts), a denial here.
  if (state === 'REJECTED') deps.metrics.secondFactor('push', 'denied');
  return state;
}
