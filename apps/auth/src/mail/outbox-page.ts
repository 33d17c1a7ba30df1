/**
 * GET /dev/outbox: the development outbox's messages (mail/dev-outbox.ts), newest first, with
 * their links. Rules:
 * - mounted only when the mailer is the development outbox, which config.mail never is in
 *   production: there the path is answered 404 like any unknown path;
 * - the plain-text body is shown (escaped); the HTML body is not rendered (no inline markup from mail);
 * - the page is in the reader's language (i18n/page-language.ts), each message as it was written.
 */
import Router from '@koa/router';
import { pageLanguage } from '../i18n/page-language.ts';
import type { DevOutbox } from './dev-outbox.ts';
import { outboxPage } from '../views/outbox-page.ts';

export const OUTBOX_PATH = '/dev/outbox';

export function outboxRoutes(outbox: DevOutbox): Router {
  const router = new Router();
  router.get(OUTBOX_PATH, (ctx) => {
    ctx.status = 200;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = outboxPage(outbox.messages(), pageLanguage(ctx));
  });
  return router;
}
