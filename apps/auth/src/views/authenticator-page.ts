/**
 * The web authenticator's shell. Rules:
 * - everything dynamic is done by the module script /authenticator/app.js (same origin, no inline
 *   script; deferred like every module script), which fills the elements below with textContent
 *   only;
 * - every text is from the page's catalogue; what the script says travels as JSON in the
 *   `data-text` attribute of `<main>` (the CSP allows no inline script), a value in a message as
 *   its `{name}` placeholder, which the script fills in;
 * - a refusal of the authenticator's API is said by its error code (`errors`) on a page in another
 *   language than English; an English page shows the server's own description, which is more
 *   specific;
 * - the footer holds the language switch, as on every page (views/layout.ts).
 */
import { html } from '@gatehouse/html';
import type { AuthErrorCode } from '../errors/auth-error.ts';
import type { PageLanguage } from '../i18n/page-language.ts';
import { languageSwitch } from './layout.ts';

/** The refusals the authenticator's API answers (authenticator/api.ts, push/push-answer.ts, push/push-report.ts). */
const REFUSALS: readonly AuthErrorCode[] = [
  'invalid_request',
  'invalid_signature',
  'request_replayed',
  'invalid_enrollment_code',
  'too_many_attempts',
  'not_found',
  'device_not_allowed',
  'push_expired',
  'push_already_decided',
  'number_mismatch',
  'push_not_refused',
  'unsupported_media_type',
  'payload_too_large',
  'server_error',
  'temporarily_unavailable',
];

/** What app.js says, by the name it uses. */
function authenticatorScriptText(language: PageLanguage): Record<string, string | Record<string, string>> {
  const { t } = language;
  return {
    deviceInfo: t('authenticator.deviceInfo', { name: '{name}', username: '{username}' }),
    connected: t('authenticator.connected'),
    reconnecting: t('authenticator.reconnecting'),
    polling: t('authenticator.polling'),
    offline: t('authenticator.offline'),
    notAccepted: t('authenticator.notAccepted'),
    revoked: t('authenticator.revoked'),
    signInTo: t('authenticator.signInTo', { client: '{client}' }),
    browser: t('authenticator.browser'),
    unknownBrowser: t('authenticator.unknownBrowser'),
    ip: t('authenticator.ip'),
    expiresIn: t('authenticator.expiresIn', { time: '{time}' }),
    expired: t('authenticator.expired'),
    pickNumber: t('authenticator.pickNumber'),
    deny: t('authenticator.deny'),
    approved: t('authenticator.approved'),
    denied: t('authenticator.denied'),
    wrongNumber: t('authenticator.wrongNumber', { reason: '{reason}' }),
    answerRefused: t('authenticator.answerRefused'),
    answerFailed: t('authenticator.answerFailed'),
    reportRefused: t('authenticator.reportRefused'),
    reportFailed: t('authenticator.reportFailed'),
    enrollRefused: t('authenticator.enrollRefused'),
    enrollFailed: t('authenticator.enrollFailed'),
    unsupported: t('authenticator.unsupported'),
    keyStoreFailed: t('authenticator.keyStoreFailed'),
    errors: language.locale === 'en' ? {} : Object.fromEntries(REFUSALS.map((code) => [code, language.text(`error.${code}`)])),
  };
}

export function authenticatorPage(language: PageLanguage): string {
  const { t } = language;
  const accountPage = html`<a href="/account/security">${t('authenticator.accountPage')}</a>`;
  return html`<!doctype html>
<html lang="${language.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="theme-color" content="#4f46e5">
<title>${t('authenticator.title')} · ${t('layout.titleSuffix')}</title>
<link rel="manifest" href="/authenticator/manifest.webmanifest" crossorigin="use-credentials">
<link rel="icon" href="/authenticator/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/gatehouse.css">
<script type="module" src="/authenticator/app.js"></script>
</head>
<body>
<main class="card" id="authenticator" data-text="${JSON.stringify(authenticatorScriptText(language))}">
<p class="brand">${t('authenticator.brand')}</p>
<p class="error" role="alert" id="error" hidden></p>
<section id="loading"><p class="muted">${t('authenticator.loading')}</p></section>
<section id="enroll" hidden>
<h1>${t('authenticator.enrollTitle')}</h1>
<p>${t('authenticator.enrollIntro', { account: accountPage })}</p>
<form id="enroll-form" autocomplete="off">
<label for="enroll-code">${t('authenticator.enrollCode')}</label>
<p class="muted" id="enroll-code-hint">${t('authenticator.enrollCodeHint')}</p>
<input id="enroll-code" name="code" required maxlength="64" spellcheck="false" autocapitalize="characters" autocomplete="off" aria-describedby="enroll-code-hint" class="user-code">
<label for="device-name">${t('authenticator.deviceName')}</label>
<input id="device-name" name="name" required maxlength="64" value="${t('authenticator.deviceNameDefault')}">
<button type="submit" id="enroll-submit">${t('authenticator.enroll')}</button>
</form>
</section>
<section id="main" hidden>
<h1>${t('authenticator.requestsTitle')}</h1>
<p class="muted" id="device-info"></p>
<p class="muted" role="status" id="status"></p>
<p role="status" id="result" hidden></p>
<div id="not-me" class="not-me" hidden>
<p>${t('authenticator.notMeQuestion')}</p>
<button type="button" class="danger" id="not-me-button">${t('authenticator.notMe')}</button>
<div id="not-me-done" hidden>
<p class="notice" role="status">${t('authenticator.notMeRecorded')}</p>
<p><a class="button" id="change-password" href="/account/security#password">${t('authenticator.changePassword')}</a></p>
<p class="muted">${t('authenticator.cantSignIn', { reset: html`<a id="reset-password" href="/account/forgot-password">${t('authenticator.resetByEmail')}</a>` })}</p>
</div>
</div>
<div id="requests"></div>
<p class="muted" id="empty">${t('authenticator.empty')}</p>
<details class="alt-method"><summary>${t('authenticator.thisDevice')}</summary>
<p class="muted">${t('authenticator.removeHint', { account: accountPage })}</p>
<button type="button" class="danger" id="forget">${t('authenticator.forget')}</button>
</details>
</section>
</main>
<footer class="page-footer">
${languageSwitch(language, language.returnTo)}
</footer>
</body>
</html>
`.value;
}
