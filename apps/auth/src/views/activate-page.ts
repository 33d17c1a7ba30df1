import { html, type SafeHtml } from '@gatehouse/html';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { ScopeDescription } from '../consent/scope-descriptions.ts';
import { layout } from './layout.ts';

/** What went wrong with the code the user typed (or why the page is shown again). */
export interface ActivateProblem {
  message: string;
  /** The stable code named under the message (docs/spec.md §7). */
  code: string;
  /** A request that ended (denied) rather than failed: shown as a notice, not an error. */
  notice?: boolean;
}

export interface ActivateCodeModel {
  /** oidc-provider's form token for this browser session. */
  xsrf: string;
  /** The code to show again in the field (what the user typed). */
  userCode?: string;
  problem?: ActivateProblem;
}

/**
 * The verification page (RFC 8628 §3.3): one field for the code the device shows. Letters may be
 * typed in any case, with or without the dash; the field is a plain form, so it works without
 * script and by keyboard. An error keeps the typed code in the field and says what to do next.
 */
export function activateCodePage(model: ActivateCodeModel): string {
  const problem = model.problem;
  return layout({
    title: 'Connect a device',
    body: html`<h1>Connect a device</h1>
${problem ? problemBlock(problem) : html`<p id="activate-intro">Enter the code shown on your device, TV or terminal.</p>`}
<form method="post" action="${AUTH_ROUTES.activate}" id="activate-form" autocomplete="off">
<input type="hidden" name="xsrf" value="${model.xsrf}">
<label for="user_code">Code</label>
<input id="user_code" name="user_code" class="user-code" value="${model.userCode ?? ''}" required maxlength="32" autocapitalize="characters" spellcheck="false" placeholder="XXXX-XXXX" aria-describedby="user-code-help" autofocus>
<p class="muted" id="user-code-help">Eight letters, like BCDF-GHJK. Upper or lower case, the dash is optional.</p>
<button type="submit" id="activate-continue">Continue</button>
</form>`,
  });
}

function problemBlock(problem: ActivateProblem): SafeHtml {
  return html`<p class="${problem.notice ? 'notice' : 'error'}" role="${problem.notice ? 'status' : 'alert'}" id="activate-problem">${problem.message}</p>
<p class="muted">Error code: <code>${problem.code}</code></p>`;
}

export interface ActivateConfirmModel {
  xsrf: string;
  /** The user code as the device shows it (XXXX-XXXX). */
  userCode: string;
  clientName: string;
  scopes: ScopeDescription[];
  /** What the device said about itself when it asked (its address and user agent). */
  device: { ip?: string; userAgent?: string };
  /** The account of the browser's SSO session, when there is one. */
  username?: string;
}

/**
 * The confirmation (RFC 8628 §5.4): which application asks, for what, from which device, and
 * Approve / Deny. One form, two submit buttons, so it works without script and by keyboard:
 * Approve has the focus, Tab reaches Deny. Approve continues to the sign-in when the browser has
 * no session.
 */
export function activateConfirmPage(model: ActivateConfirmModel): string {
  return layout({
    title: 'Approve device',
    body: html`<h1>Sign in to <span id="activate-client">${model.clientName}</span> on a device?</h1>
<p class="muted">Only approve if the device in front of you shows this code:</p>
<p class="user-code-shown" id="activate-code">${model.userCode}</p>
${model.scopes.length ? html`<p>${model.clientName} is asking to:</p>
<ul class="scopes" id="activate-scopes">${model.scopes.map(
      (s) => html`<li data-scope="${s.scope}">${s.description}${s.description === s.scope ? '' : html` <code>${s.scope}</code>`}</li>`,
    )}</ul>` : ''}
<div class="request"><dl>
<dt>Device address</dt><dd id="activate-device-ip">${model.device.ip ?? 'unknown'}</dd>
<dt>Device software</dt><dd id="activate-device-ua">${model.device.userAgent || 'unknown'}</dd>
</dl></div>
${model.username ? html`<p class="muted">Signed in as <strong id="activate-username">${model.username}</strong>.</p>` : html`<p class="muted">You will sign in next.</p>`}
<form method="post" action="${AUTH_ROUTES.activate}" id="activate-decision">
<input type="hidden" name="xsrf" value="${model.xsrf}">
<input type="hidden" name="user_code" value="${model.userCode}">
<button type="submit" name="confirm" value="yes" id="activate-approve" autofocus>Approve</button>
<button type="submit" name="abort" value="yes" class="secondary" id="activate-deny">Deny</button>
</form>`,
  });
}

/** The end of an approved device sign-in: the device continues by itself. */
export function activateDonePage(clientName: string): string {
  return layout({
    title: 'Device connected',
    body: html`<h1>Device connected</h1>
<p class="notice" role="status" id="activate-done">You are signed in to <strong>${clientName}</strong> on your device. It continues by itself; you can close this page.</p>
<p class="muted">To connect another device, <a href="${AUTH_ROUTES.activate}">enter another code</a>. Connected apps are listed on your <a href="/account#apps">account page</a>.</p>`,
  });
}

/** Too many wrong codes from this address: how long to wait, and the way back to the form. */
export function activateWaitPage(retryAfterSeconds: number): string {
  return layout({
    title: 'Too many attempts',
    body: html`<h1>Too many attempts</h1>
<p class="error" role="alert" id="activate-wait">Too many wrong codes were entered from your network. Wait ${String(retryAfterSeconds)} seconds, then enter the code again.</p>
<p class="muted">Error code: <code>too_many_attempts</code></p>
<a class="button secondary" href="${AUTH_ROUTES.activate}" id="activate-again">Enter the code again</a>`,
  });
}

/** A step of the device sign-in this browser cannot continue: what happened, and the way back to the code form. */
export function activateRestartPage(message: string, code: string): string {
  return layout({
    title: 'Connect a device',
    body: html`<h1>Connect a device</h1>
<p class="error" role="alert" id="activate-problem">${message}</p>
<p class="muted">Error code: <code>${code}</code></p>
<a class="button secondary" href="${AUTH_ROUTES.activate}" id="activate-again">Enter the code again</a>`,
  });
}
