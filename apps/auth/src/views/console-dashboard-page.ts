/**
 * The admin console's dashboard (/admin): the last 24 hours of sign-ins, what is locked out now,
 * the sessions, the signing keys with their age, the schema and the version.
 */
import { html, type SafeHtml } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';
import { consoleAge, consoleTime } from './console-time.ts';

/** What the dashboard shows (admin/overview.ts's Overview fits it). */
export interface DashboardModel {
  since: number;
  signIns: number;
  failures: number;
  lockoutsStarted: number;
  lockedOut: readonly { username: string; until: number }[];
  activeSessions: number;
  keys: readonly { kid: string; alg: string; state: 'active' | 'pending' | 'retired' | 'expired'; createdAt: number; ageMs: number }[];
  pendingMigrations: readonly string[];
  version: { version: string; commit: string };
}

export function dashboardBody(model: DashboardModel & { language: PageLanguage; usersUrl: string; auditUrl: string; keysUrl: string; lockedUserUrl: (username: string) => string }): SafeHtml {
  const { language } = model;
  const { t } = language;
  const when = (ms: number) => consoleTime(language, ms);
  const stat = (id: string, label: string, value: number | string, href?: string) =>
    html`<div class="stat"><dt>${label}</dt><dd id="${id}">${href ? html`<a href="${href}">${String(value)}</a>` : String(value)}</dd></div>`;
  return html`<h1>${t('console.nav.dashboard')}</h1>
<section aria-labelledby="activity-heading"><h2 id="activity-heading">${t('console.dashboard.last24h')}</h2>
<dl class="stats">
${stat('stat-sign-ins', t('console.dashboard.signIns'), model.signIns, model.auditUrl)}
${stat('stat-failures', t('console.dashboard.failures'), model.failures, model.auditUrl)}
${stat('stat-lockouts-started', t('console.dashboard.lockoutsStarted'), model.lockoutsStarted)}
${stat('stat-locked-now', t('console.dashboard.lockedNow'), model.lockedOut.length)}
${stat('stat-sessions', t('console.dashboard.activeSessions'), model.activeSessions)}
</dl>
<p class="muted">${t('console.dashboard.since', { at: when(model.since) })}</p></section>
<section aria-labelledby="lockouts-heading"><h2 id="lockouts-heading">${t('console.dashboard.lockouts')}</h2>
${
  model.lockedOut.length
    ? html`<ul class="rows" id="lockout-list">${model.lockedOut.map((l) => html`<li><a href="${model.lockedUserUrl(l.username)}">${l.username}</a> <span class="muted">${t('console.dashboard.lockedUntil', { at: when(l.until) })}</span></li>`)}</ul>`
    : html`<p id="lockout-list">${t('console.dashboard.noLockout')}</p>`
}</section>
<section aria-labelledby="keys-heading"><h2 id="keys-heading">${t('console.nav.keys')}</h2>
<div class="table-wrap" role="region" aria-label="${t('console.nav.keys')}" tabindex="0"><table id="key-table"><caption class="visually-hidden">${t('console.nav.keys')}</caption>
<thead><tr><th scope="col">${t('console.keys.kid')}</th><th scope="col">${t('console.keys.state')}</th><th scope="col">${t('console.keys.alg')}</th><th scope="col">${t('console.keys.age')}</th><th scope="col">${t('console.keys.created')}</th></tr></thead>
<tbody>${model.keys.map((k) => html`<tr><td><code>${k.kid}</code></td><td>${t(`console.keys.stateShort.${k.state}`)}</td><td>${k.alg}</td><td>${consoleAge(language, k.ageMs)}</td><td>${when(k.createdAt)}</td></tr>`)}</tbody></table></div>
<p><a href="${model.keysUrl}">${t('console.dashboard.manageKeys')}</a></p></section>
<section aria-labelledby="server-heading"><h2 id="server-heading">${t('console.dashboard.server')}</h2>
<dl class="profile">
<dt>${t('console.dashboard.version')}</dt><dd id="server-version">${model.version.version}${model.version.commit !== 'unknown' ? html` (<code>${model.version.commit.slice(0, 12)}</code>)` : ''}</dd>
<dt>${t('console.dashboard.pendingMigrations')}</dt><dd id="pending-migrations">${model.pendingMigrations.length ? html`${String(model.pendingMigrations.length)}: ${model.pendingMigrations.join(', ')} <span class="muted">${t('console.dashboard.runMigrate')}</span>` : t('console.dashboard.schemaCurrent')}</dd>
</dl></section>`;
}
