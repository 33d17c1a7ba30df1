/**
 * The JSON shape of a list: `{ items, next }`, `next` the opaque cursor of the following page or
 * null on the last one. The admin API's lists and `authctl ... list --json` print it (authctl
 * lists everything at once: its `next` is null).
 */
import { z } from 'zod';

export const pageJson = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), next: z.string().nullable() });

/** A list that is never paged (a user's sessions and grants, the signing keys): `{ items }`. */
export const itemsJson = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
