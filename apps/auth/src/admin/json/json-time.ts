/**
 * Times in the admin JSON shapes (admin API bodies and `authctl --json`). Rules: an instant is an
 * ISO 8601 UTC string; an instant that is not known or not set is null, never absent.
 */
import { z } from 'zod';

/** The schema of an instant; its format is documented, the value is ours (never parsed here). */
export const IsoTime = z.string().meta({ format: 'date-time' });

export function isoTime(ms: number): string;
export function isoTime(ms: number | null | undefined): string | null;
export function isoTime(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}
