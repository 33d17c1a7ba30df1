import { html, raw } from '@gatehouse/html';
import { layout } from './layout.ts';

/**
 * RP-initiated logout confirmation. `form` is oidc-provider's hidden form (it carries the xsrf
 * token); the same-origin script submits it at once so the user is not asked twice.
 */
export function logoutPage(form: string, clientName: string | undefined): string {
  return layout({
    title: 'Signing out',
    scripts: ['/static/logout.js'],
    body: html`<h1>Signing out</h1>
<p>Signing you out of Gatehouse${clientName ? html` and <strong>${clientName}</strong>` : ''}…</p>
${raw(form)}
<button type="submit" form="op.logoutForm" value="yes" name="logout" id="logout-confirm">Sign out</button>`,
  });
}
