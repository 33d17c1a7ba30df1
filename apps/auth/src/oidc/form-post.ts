/**
 * oidc-provider answers the form_post response mode (authorization responses and errors) and a
 * logout without a session with its own auto-submitting page, whose inline script a strict CSP
 * refuses. Rules:
 * - every such page is replaced by views/form-post-page.ts: the same action and the same fields,
 *   posted by a same-origin script (/static/form-post.js), with a Continue button; status kept;
 * - the CSP's form-action then allows the action's origin for that answer only
 *   (ctx.state.formActionOrigins, http/security-headers.ts); script-src stays 'self';
 * - a page that does not have the library's exact shape is left alone.
 */
import type { Next } from 'koa';
import type { AuthContext } from '../http/state.ts';
import { pageLanguage } from '../i18n/page-language.ts';
import { formPostPage } from '../views/form-post-page.ts';

const PAGE = /^<!DOCTYPE html>\s*<html>\s*<head>[\s\S]*?<title>Submitting Callback<\/title>[\s\S]*?<form method="post" action="([^"]*)">([\s\S]*?)<noscript>/;
const FIELD = /<input type="hidden" name="([^"]*)" value="([^"]*)"\/>/g;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The text oidc-provider escaped (helpers/html_safe.js) for an attribute. */
const unescape = (value: string) => value.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!);

export async function formPostWithoutInlineScript(ctx: AuthContext, next: Next): Promise<void> {
  await next();
  if (typeof ctx.body !== 'string') return;
  const page = PAGE.exec(ctx.body);
  if (!page) return;
  const action = unescape(page[1]!);
  const origin = URL.parse(action)?.origin;
  if (!origin || origin === 'null') return;
  const fields = [...page[2]!.matchAll(FIELD)].map((m) => [m[1]!, unescape(m[2]!)] as const);
  const status = ctx.status;
  ctx.body = formPostPage(action, fields, pageLanguage(ctx));
  ctx.status = status;
  ctx.type = 'html';
  ctx.state.formActionOrigins = [...new Set([...(ctx.state.formActionOrigins ?? []), origin])];
}
