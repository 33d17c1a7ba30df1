/**
 * The audit trail's paging cursor: the position (occurred_at, id) of a page's last event, opaque to
 * clients. Rules: base64url of `<occurred_at>.<id>` (decimal, no leading zeros); anything else,
 * including a cursor in another spelling of the same position, is refused (undefined).
 */
import type { AuditPosition } from './audit-event-store.ts';

const POSITION = /^(0|[1-9]\d{0,15})\.([1-9]\d{0,15})$/;

export function encodeAuditCursor(position: AuditPosition): string {
  return Buffer.from(`${position.occurredAt}.${position.id}`).toString('base64url');
}

export function decodeAuditCursor(cursor: string): AuditPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) return undefined;
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) return undefined;
  const position = { occurredAt: Number(match[1]), id: Number(match[2]) };
  if (!Number.isSafeInteger(position.occurredAt) || !Number.isSafeInteger(position.id)) return undefined;
  // One spelling per position: a cursor with padding bits or other noise is not one we issued.
  return encodeAuditCursor(position) === cursor ? position : undefined;
}
