/**
 * Post/redirect/get for the sign-in steps. Rules:
 * - only a browser's form post (a navigation: `Sec-Fetch-Dest: document`, not JSON) is redirected;
 *   API clients and JSON keep the answers of the wire contract (docs/spec.md §4);
 * - the redirect is 303 to a GET that shows the step the post led to, so Back and reload never
 *   post a form again (no "Confirm Form Resubmission").
 */
import type { Context } from 'koa';

/** Whether this post is a browser's navigation, answered with a redirect to a GET. */
export function redirectsAfterPost(ctx: Context, json: boolean): boolean {
  return !json && ctx.get('sec-fetch-dest') === 'document';
}

/** Answers 303 to `path` (a GET showing the step the post led to). */
export function seeOther(ctx: Context, path: string): void {
  ctx.redirect(path);
  ctx.status = 303;
}

/** The GET of an interaction's current step (routes.ts). */
export const interactionPath = (uid: string): string => `/interaction/${encodeURIComponent(uid)}`;
