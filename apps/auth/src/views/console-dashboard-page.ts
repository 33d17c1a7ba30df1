/**
 * The admin console's dashboard (/admin): the last 24 hours of sign-ins, what is locked out now,
 * the sessions, the signing keys with their age, the schema and the version.
 */
import { html, type SafeHtml } from '@gatehouse/html';

/** What the dashboard shows (admin/overview.ts's Overview fits it). */
export interface DashboardModel {
  since: number;
  signIns: number;
  failures: number;
  lockoutsStarted: number;
  lockedOut: readonly { username: string; until: number }[];
  activeSessions: number;
  keys: readonly { kid: string; alg: string; state: string; createdAt: number; ageMs: number }[];
  pendingMigrations: readonly string[];
  version: { version: string; commit: string };
}

export const consoleDate = (ms: number | null | undefined): string => (ms === null || ms === undefined ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

/** "3 days", "5 hours", "12 minutes": an age or a duration, rounded down to its largest unit. */
export function consoleAge(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    const n = Math.floor(ms / size);
    if (n >= 1) return `${n} ${name}${n === 1 ? '' : 's'}`;
  }
  return 'less than a minute';
}

export function dashboardBody(model: DashboardModel & { usersUrl: string; auditUrl: string; keysUrl: string; lockedUserUrl: (username: string) => string }): SafeHtml {
  const stat = (id: string, label: string, value: number | string, href?: string) =>
    html`<div class="stat"><dt>${label}</dt><dd id="${id}">${href ? html`<a href="${href}">${String(value)}</a>` : String(value)}</dd></div>`;
  return html`<h1>Dashboard</h1>
<section aria-labelledby="activity-heading"><h2 id="activity-heading">Last 24 hours</h2>
<dl class="stats">
${stat('stat-sign-ins', 'Sign-ins', model.signIns, model.auditUrl)}
${stat('stat-failures', 'Failed sign-in steps', model.failures, model.auditUrl)}
${stat('stat-lockouts-started', 'Lockouts started', model.lockoutsStarted)}
${stat('stat-locked-now', 'Locked out now', model.lockedOut.length)}
${stat('stat-sessions', 'Active sessions', model.activeSessions)}
</dl>
<p class="muted">Since ${consoleDate(model.since)}.</p></section>
<section aria-labelledby="lockouts-heading"><h2 id="lockouts-heading">Current lockouts</h2>
${
  model.lockedOut.length
    ? html`<ul class="rows" id="lockout-list">${model.lockedOut.map((l) => html`<li><a href="${model.lockedUserUrl(l.username)}">${l.username}</a> <span class="muted">locked until ${consoleDate(l.until)}</span></li>`)}</ul>`
    : html`<p id="lockout-list">No account is locked out.</p>`
}</section>
<section aria-labelledby="keys-heading"><h2 id="keys-heading">Signing keys</h2>
<div class="table-wrap" role="region" aria-label="Signing keys" tabindex="0"><table id="key-table"><caption class="visually-hidden">Signing keys</caption>
<thead><tr><th scope="col">Key id</th><th scope="col">State</th><th scope="col">Algorithm</th><th scope="col">Age</th><th scope="col">Created</th></tr></thead>
<tbody>${model.keys.map((k) => html`<tr><td><code>${k.kid}</code></td><td>${k.state}</td><td>${k.alg}</td><td>${consoleAge(k.ageMs)}</td><td>${consoleDate(k.createdAt)}</td></tr>`)}</tbody></table></div>
<p><a href="${model.keysUrl}">Manage signing keys</a></p></section>
<section aria-labelledby="server-heading"><h2 id="server-heading">Server</h2>
<dl class="profile">
<dt>Version</dt><dd id="server-version">${model.version.version}${model.version.commit !== 'unknown' ? html` (<code>${model.version.commit.slice(0, 12)}</code>)` : ''}</dd>
<dt>Pending migrations</dt><dd id="pending-migrations">${model.pendingMigrations.length ? html`${String(model.pendingMigrations.length)}: ${model.pendingMigrations.join(', ')} <span class="muted">(run <code>authctl db migrate</code>)</span>` : 'none, the database schema is current'}</dd>
</dl></section>`;
}
