/**
 * Rules for every response of the authorization server, error pages included (set in `finally`
 * by @gatehouse/http, mounted outside the error handler in app.ts):
 * - a strict CSP: same-origin assets only, no inline script, no framing, no plugins;
 * - form-action also allows the origins a page is about to redirect to (Chromium applies
 *   form-action to the redirect that follows a form post), set per request in ctx.state.formActionOrigins;
 * - the one exception to "no inline script": oidc-provider's own auto-submitting page (the
 *   form_post response mode, a logout without a session) carries one inline script that submits
 *   its form; that script is allowed by its SHA-256 and the form's target origin by form-action,
 *   on that answer only (oidc-provider adds the hash only to a CSP set before it, and ours is set after);
 * - no MIME sniffing, no referrer leaks of codes, no caching of pages carrying secrets.
 */
import { createHash } from 'node:crypto';
import { isHtmlResponse, securityHeaders } from '@gatehouse/http';
import type { AuthContext, AuthState } from './state.ts';

const AUTO_SUBMIT = /^<!DOCTYPE html>\s*<html>\s*<head>[\s\S]*?<title>Submitting Callback<\/title>\s*<script>([\s\S]*?)<\/script>[\s\S]*?<form method="post" action="([^"]*)">/;

/** The script hash and form origin of oidc-provider's auto-submitting page, if this is one. */
function autoSubmitPage(ctx: AuthContext): { scriptHash: string; formOrigin: string | undefined } | undefined {
  if (typeof ctx.body !== 'string') return undefined;
  const match = AUTO_SUBMIT.exec(ctx.body);
  if (!match) return undefined;
  const scriptHash = `'sha256-${createHash('sha256').update(match[1]!).digest('base64')}'`;
  const formOrigin = URL.parse(match[2]!.replace(/&amp;/g, '&'))?.origin;
  return { scriptHash, formOrigin: formOrigin && formOrigin !== 'null' ? formOrigin : undefined };
}

const policy = (formAction: string, scriptSrc: string): string =>
  `default-src 'none'; script-src ${scriptSrc}; style-src 'self'; img-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`;
/** The policy of nearly every answer (no redirect origin to allow, no auto-submitting page). */
const SAME_ORIGIN_POLICY = policy("'self'", "'self'");

export function authContentSecurityPolicy(ctx: AuthContext): string {
  const autoSubmit = autoSubmitPage(ctx);
  if (!autoSubmit && !ctx.state.formActionOrigins?.length) return SAME_ORIGIN_POLICY;
  const formAction = ["'self'", ...(ctx.state.formActionOrigins ?? []), ...(autoSubmit?.formOrigin ? [autoSubmit.formOrigin] : [])].join(' ');
  const scriptSrc = ["'self'", ...(autoSubmit ? [autoSubmit.scriptHash] : [])].join(' ');
  return policy(formAction, scriptSrc);
}

export const authSecurityHeaders = securityHeaders<AuthState>({ csp: authContentSecurityPolicy, noStore: isHtmlResponse });
