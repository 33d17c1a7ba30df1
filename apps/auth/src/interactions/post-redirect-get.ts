/**
 * Post/redirect/get for the sign-in steps. Rules:
 * - only a browser's form post (a navigation: `Sec-Fetch-Dest: document`, not JSON) is redirected;
 *   API clients and JSON keep the answers of the wire contract (docs/spec.md §4);
 * - the redirect is 303 to a GET that shows the step the post led to, so Back and reload never
 *   post a form again (no "Confirm Form Resubmission");
 * - an authorization resumed inside such a post that needs another step (the consent after a
 *   login or an account selection, the login after "Use another account") keeps oidc-provider's
 *   303 to that step's `/interaction/<uid>` (oidc/wire-contract.ts answers it with the step
 *   itself only for the others).
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

const resumedByNavigation = new WeakSet<IncomingMessage>();

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

/** Marks a resume running inside a browser's form post: its next step stays a 303. */
export function resumeSeesOther(req: IncomingMessage): void {
  resumedByNavigation.add(req);
}

/** Whether this request is a resume inside a browser's form post (resumeSeesOther). */
export const resumesWithSeeOther = (req: IncomingMessage): boolean => resumedByNavigation.has(req);
