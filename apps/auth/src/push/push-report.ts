/**
 * "This wasn't me": the user reports a push their device refused (a denial or a wrong number) as
 * a sign-in they did not start. Rules, checked in this order:
 * - the device must exist and sign (transaction, device) with its key, else 401
 *   invalid_signature;
 * - the push must exist (404) and belong to the device's account, else 403 device_not_allowed;
 * - the push must be REJECTED by this very device, else 409 push_not_refused: only the device
 *   that refused a sign-in can report it;
 * - the first report is recorded on the push and audited (`push.reported`, with the refusal);
 *   a repeated one answers the same and records nothing more;
 * - every refusal is audited with its reason (`push.report.refused`).
 * The answer leads to a password change: someone who could start the sign-in knows the password.
 */
import { AuthError } from '../errors/auth-error.ts';
import type { AuditFields } from '../audit/audit-events.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { DeviceStore } from '../devices/device-store.ts';
import { reportMessage, verifySignature } from '../devices/signed-request.ts';
import type { PushStore } from './push-store.ts';

export interface PushReportDeps {
  devices: DeviceStore;
  pushes: PushStore;
  audit: Auditor;
}

export interface PushReport {
  transactionId: string;
  deviceId: string;
  signature: string;
  ip: string;
}

/** Records the report; answers whether this call was the first one. */
export async function reportPush(deps: PushReportDeps, report: PushReport): Promise<{ first: boolean }> {
  const refuse = (reason: AuditFields['push.report.refused']['reason'], error: AuthError, accountId?: string): never => {
    deps.audit.record('push.report.refused', { reason, push_id: report.transactionId, device_id: report.deviceId, account_id: accountId, ip: report.ip });
    throw error;
  };
  const device = await deps.devices.find(report.deviceId);
  if (!device || !(await verifySignature(device.publicKey, reportMessage(report.transactionId, report.deviceId), report.signature))) {
    refuse(device ? 'forged_signature' : 'unknown_device', new AuthError(401, 'invalid_signature', 'The report is not signed by an enrolled device.'), device?.accountId);
  }
  const transaction = await deps.pushes.find(report.transactionId);
  if (!transaction) throw new AuthError(404, 'not_found', 'No such push request.');
  if (transaction.accountId !== device!.accountId) {
    refuse('foreign_device', new AuthError(403, 'device_not_allowed', 'This device is not enrolled for the account of this sign-in.'), device!.accountId);
  }
  if (transaction.state !== 'REJECTED' || transaction.deviceId !== device!.id) {
    refuse('not_refused', new AuthError(409, 'push_not_refused', 'Only a sign-in this device denied can be reported.'), transaction.accountId);
  }
  const first = await deps.pushes.report(transaction.id);
  if (first) {
    deps.audit.record('push.reported', { account_id: transaction.accountId, push_id: transaction.id, device_id: device!.id, refusal: transaction.refusal ?? 'denied', ip: report.ip });
  }
  return { first };
}
