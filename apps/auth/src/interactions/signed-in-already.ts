/**
 * The page of a finished sign-in opened again (Back from the app after signing in). Rules:
 * - it answers only the GET of an interaction page that cannot go on (interaction_expired), for a
 *   browser (HTML; JSON keeps the 400), when this browser started that interaction
 *   (browser-interactions.ts) and holds an SSO session of an enabled account
 *   (signed-in.ts);
 * - it is 200 "You are already signed in", naming the session's user, with one way on: "Continue
 *   to <app>", the home of the app the interaction was for (its display name; the origin of its
 *   first registered redirect URI, browser-interactions.ts appHome): a registered address only,
 *   never one from the request;
 * - otherwise (no session, an interaction this browser did not start, an app that is not
 *   registered) the expired page stands, with its own way on.
 */
import type { Context } from 'koa';
import { responseFormat } from '@gatehouse/http';
import { currentSession, type SignedInDeps } from './signed-in.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import { messagePage } from '../views/message-page.ts';
import { appHome, startedClient } from './browser-interactions.ts';

/** Answers the page and true, or false when the expired page stands. */
export async function showSignedInAlready(ctx: Context, deps: SignedInDeps, uid: string): Promise<boolean> {
  if (responseFormat(ctx) === 'json') return false;
  const provider = deps.provider();
  const clientId = startedClient(provider, ctx, uid);
  if (!clientId) return false;
  const signedIn = await currentSession(ctx, deps);
  const app = signedIn && (await appHome(provider, clientId));
  if (!signedIn || !app) return false;
  const language = pageLanguage(ctx);
  ctx.status = 200;
  ctx.type = 'html';
  ctx.body = messagePage(language.t('signedIn.title'), language.t('signedIn.text', { username: signedIn.account.username, app: app.name }), {
    way: { label: `Continue to ${app.name}`, href: app.href, says: { way: 'continueTo', app: app.name } },
    language,
  });
  return true;
}
