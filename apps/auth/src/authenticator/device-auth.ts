/**
 * Authenticates a listing request of the web authenticator (query `device_id`, `ts`, `nonce`,
 * `sig`; EventSource cannot send headers). Rules: signed-request.ts. Every refusal is a 401
 * (`invalid_signature`, or `request_replayed` for a reused nonce) and is audited with its reason.
 */
import type { Context } from 'koa';
import { AuthError, invalidRequest } from '../errors/auth-error.ts';
import type { AuditFields } from '../audit/audit-events.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { Device, DeviceStore } from '../devices/device-store.ts';
import { freshTimestamp, listMessage, MAX_SKEW_MS, verifySignature } from '../devices/signed-request.ts';

export interface DeviceAuthDeps {
  devices: DeviceStore;
  audit: Auditor;
  clock: () => number;
}

function queryField(ctx: Context, name: string, pattern: RegExp): string {
  const value = ctx.query[name];
  if (typeof value !== 'string' || !pattern.test(value)) throw invalidRequest(`Query parameter "${name}" is missing or malformed.`);
  return value;
}

export async function authenticateDevice(ctx: Context, deps: DeviceAuthDeps): Promise<Device> {
  const deviceId = queryField(ctx, 'device_id', /^[\w-]{1,64}$/);
  const timestamp = queryField(ctx, 'ts', /^\d{1,16}$/);
  const nonce = queryField(ctx, 'nonce', /^[\w-]{16,64}$/);
  const signature = queryField(ctx, 'sig', /^[\w-]{1,128}$/);
  const refuse = (reason: AuditFields['device.request.refused']['reason'], error: AuthError): never => {
    deps.audit.record('device.request.refused', { reason, device_id: deviceId, ip: ctx.ip });
    throw error;
  };
  const now = deps.clock();
  const device = await deps.devices.find(deviceId);
  if (!device) refuse('unknown_device', new AuthError(401, 'invalid_signature', 'This device is not enrolled (it may have been removed).'));
  if (!freshTimestamp(timestamp, now)) {
    refuse('stale_timestamp', new AuthError(401, 'invalid_signature', 'The request time is too far from the server time; check the device clock.'));
  }
  if (!(await verifySignature(device!.publicKey, listMessage(deviceId, timestamp, nonce), signature))) {
    refuse('forged_signature', new AuthError(401, 'invalid_signature', 'The request is not signed by this device.'));
  }
  if (!(await deps.devices.useNonce(deviceId, nonce, now, Math.max(now, Number(timestamp)) + MAX_SKEW_MS))) {
    refuse('replayed_nonce', new AuthError(401, 'request_replayed', 'This signed request was already used.'));
  }
  return device!;
}
