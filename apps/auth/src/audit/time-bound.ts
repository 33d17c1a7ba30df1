/**
 * The `since` / `until` of an audit query as operators type them (authctl, admin API). Rules:
 * - an ISO 8601 date (`2026-11-23`, midnight UTC) or date-time with a zone (`Z` or `+01:00`);
 *   a time without a zone is ambiguous and refused;
 * - or a duration back from now: a whole number of minutes, hours or days (`30m`, `24h`, `7d`);
 * - anything else is an AuditQueryError `invalid_time` naming the field.
 */
import { AuditQueryError } from './audit-trail.ts';

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const AGO = /^([1-9]\d{0,5})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Date.parse rolls 2026-02-30 over to March; a calendar date must exist as written. */
function realDate(value: string): boolean {
  const [y, m, d] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Epoch ms for `value`, relative durations counted back from `now`. */
export function parseTimeBound(value: string, now: number, field: 'since' | 'until'): number {
  const ago = AGO.exec(value);
  if (ago) return Math.max(0, now - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS]);
  const at = ISO.test(value) && realDate(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at) || at < 0) {
    throw new AuditQueryError('invalid_time', field, 'must be an ISO 8601 time with a zone (2026-11-23T10:00:00Z) or a duration back from now (30m, 24h, 7d)');
  }
  return at;
}
