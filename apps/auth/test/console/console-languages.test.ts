/**
 * The admin console in German, over HTTP: chosen by the language switch's cookie or by
 * Accept-Language; every console page (the sections, their forms and confirmations, the refusals,
 * the 403 of a non-admin, the sign-in pages) is `<html lang="de">` with no missing-message
 * marker; headings, labels, buttons, messages after a form and refusals are the German
 * catalogue's; times are `<time data-local>` in German, which /static/local-time.js puts in the
 * browser's zone; the language switch is in every console page's footer and returns to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDateTime, MISSING_MESSAGE_MARKER } from '@gatehouse/html/i18n';
import { startServer, type TestAuthServer, type TestUser } from '../support/flow.ts';
import { completeSignIn, consoleBrowser, csrfOf, signedInConsole, type ConsoleBrowser } from './console-support.ts';

describe('the admin console in German', () => {
  let server: TestAuthServer;
  const clock = { now: Date.now() };
  let nextIp = 1;
  const ip = () => `198.51.100.${nextIp++}`;
  let admin: TestUser;
  let adminId: string;
  let browser: ConsoleBrowser;

  const h1 = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
  /** The checks of every German console page. */
  const german = (page: { status: number; text: string; headers: Headers }, status: number) => {
    expect(page.status).toBe(status);
    expect(page.text).toContain('<html lang="de">');
    expect(page.text).not.toContain(MISSING_MESSAGE_MARKER);
    expect(page.headers.get('content-language')).toBe('de');
    expect(page.text).toContain('<span class="current-language" lang="de" aria-current="true">Deutsch</span>');
  };

  beforeAll(async () => {
    server = await startServer({ clock: () => clock.now, env: { TRUST_PROXY: 'true' } });
    admin = await server.createUser({ groups: ['admins'] });
    adminId = (await server.app.services.accounts.findByUsername(admin.username))!.id;
    browser = await signedInConsole(server, admin, clock, ip());
    const switched = await browser.post('/language', { lang: 'de', return: '/admin' });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe('/admin');
  });
  afterAll(() => server.close());

  it('the dashboard: its frame, figures, keys and times in German, with the language switch back to it', async () => {
    const page = await browser.get('/admin');
    german(page, 200);
    expect(h1(page.text)).toBe('Übersicht');
    expect(page.text).toContain('<title>Übersicht · Gatehouse-Verwaltung</title>');
    expect(page.text).toContain('<a class="skip-link" href="#content">Zum Inhalt springen</a>');
    expect(page.text).toContain('<nav aria-label="Verwaltungskonsole"><ul>');
    expect(page.text).toContain('<li><a href="/admin" aria-current="page">Übersicht</a></li><li><a href="/admin/users">Benutzer</a></li><li><a href="/admin/clients">Clients</a></li><li><a href="/admin/scopes">Scope-Richtlinien</a></li><li><a href="/admin/keys">Signaturschlüssel</a></li><li><a href="/admin/audit">Audit-Protokoll</a></li>');
    expect(page.text).toContain(`Angemeldet als <strong id="console-user">${admin.username}</strong> (<span id="console-role">Administrator</span>) · <a href="/account">Ihr Konto</a> · <a href="/oauth2/v1/logout">Abmelden</a>`);
    expect(page.text).toContain('<h2 id="activity-heading">Letzte 24 Stunden</h2>');
    expect(page.text).toContain('<dd id="pending-migrations">keine, das Datenbankschema ist aktuell</dd>');
    expect(page.text).toMatch(/<td>aktiv<\/td><td>RS256<\/td><td>(weniger als eine Minute|\d+ Minuten?)<\/td>/);
    const since = clock.now - 86_400_000;
    expect(page.text).toContain(`<p class="muted">Seit <time datetime="${new Date(since).toISOString()}" data-local="datetime">${formatDateTime(since, 'de')}</time>.</p>`);
    expect(formatDateTime(since, 'de')).toMatch(/^\d\d\.\d\d\.\d{4}, \d\d:\d\d UTC$/);
    expect(page.text).toContain('<script src="/static/local-time.js" defer></script>');
    expect(page.text).toContain('<footer class="page-footer console-footer">');
    expect(page.text).toContain('<input type="hidden" name="return" value="/admin"><button type="submit" name="lang" value="en" lang="en" class="link-button" id="language-en">English</button><span class="current-language" lang="de" aria-current="true">Deutsch</span>');
  });

  it('every page of every section is German and shows no missing message', async () => {
    const id = encodeURIComponent(adminId);
    const pages: [string, number, string][] = [
      ['/admin/users', 200, 'Benutzer'],
      ['/admin/users?q=niemand-mit-diesem-namen', 200, 'Benutzer'],
      ['/admin/users/new', 200, 'Benutzer anlegen'],
      [`/admin/users/${id}`, 200, admin.username],
      [`/admin/users/${id}/edit`, 200, `${admin.username} bearbeiten`],
      [`/admin/users/${id}/disable`, 200, `${admin.username} deaktivieren?`],
      [`/admin/users/${id}/second-factors/reset`, 200, `Die zweiten Faktoren von ${admin.username} zurücksetzen?`],
      [`/admin/users/${id}/sign-out`, 200, `${admin.username} überall abmelden?`],
      [`/admin/users/${id}/remove`, 200, `${admin.username} entfernen?`],
      ['/admin/users/no-such-id', 404, 'Nicht gefunden'],
      ['/admin/clients', 200, 'Clients'],
      ['/admin/clients/new', 200, 'Client registrieren'],
      [`/admin/clients/${server.testClient.clientId}`, 200, 'Test App'],
      [`/admin/clients/${server.testClient.clientId}/rotate?grace=0`, 200, `Das Geheimnis von ${'Test App'} wechseln?`],
      [`/admin/clients/${server.testClient.clientId}/rotate?grace=5`, 400, 'Nicht ausgeführt'],
      [`/admin/clients/${server.testClient.clientId}/remove`, 200, `Den Client ${'Test App'} entfernen?`],
      ['/admin/scopes', 200, 'Scope-Richtlinien'],
      ['/admin/scopes/movies%3Aread/clear', 404, 'Nicht gefunden'],
      ['/admin/keys', 200, 'Signaturschlüssel'],
      ['/admin/keys/rotate', 200, 'Den Signaturschlüssel jetzt wechseln?'],
      ['/admin/audit', 200, 'Audit-Protokoll'],
      [`/admin/audit?account=${id}`, 200, 'Audit-Protokoll'],
      ['/admin/audit?since=gestern', 400, 'Audit-Protokoll'],
    ];
    for (const [path, status, heading] of pages) {
      const page = await browser.get(path);
      german(page, status);
      expect(h1(page.text), path).toBe(heading);
    }
  });

  it("a user's page: sections, status, actions and times in German", async () => {
    const page = await browser.get(`/admin/users/${encodeURIComponent(adminId)}`);
    german(page, 200);
    expect(page.text).toContain('<h2 id="profile-heading">Profil</h2>');
    expect(page.text).toContain('<dt>Benutzername</dt>');
    expect(page.text).toContain('<dd id="user-status"><span class="badge ok">aktiv</span></dd>');
    expect(page.text).toContain('<dd id="user-lockout">nicht gesperrt</dd>');
    expect(page.text).toContain('<dd id="factor-totp">eingerichtet</dd>');
    expect(page.text).toContain('<h3>Authenticator-Geräte (0)</h3>');
    expect(page.text).toContain('<p id="device-list">Kein Gerät.</p>');
    expect(page.text).toContain('class="danger">Deaktivieren …</button>');
    expect(page.text).toContain('<p><a href="/admin/audit?account=');
    expect(page.text).toContain('id="user-audit">Audit-Ereignisse dieses Benutzers</a>');
    expect(page.text).toMatch(/<span class="muted">angemeldet <time datetime="[^"]+" data-local="datetime">\d\d\.\d\d\.\d{4}, \d\d:\d\d UTC<\/time> · zuletzt verwendet <time datetime="[^"]+" data-local="datetime">\d\d\.\d\d\.\d{4}, \d\d:\d\d UTC<\/time>/);
    expect(page.text).toMatch(/<ul class="rows" id="grant-list"><li data-client-id="gatehouse-account"><strong>Gatehouse-Kontoseite und Verwaltungskonsole<\/strong> <span class="muted">erteilt <time datetime="[^"]+" data-local="datetime">[^<]+<\/time><\/span>/);
    expect(page.text).toContain('<p id="consent-list">Der Benutzer hat auf der Zustimmungsseite keine App erlaubt (eigene Apps fragen nicht).</p>');
  });

  it('a confirmation page and the message after its form, in German', async () => {
    const user = await server.createUser();
    const id = encodeURIComponent((await server.app.services.accounts.findByUsername(user.username))!.id);
    const confirm = await browser.get(`/admin/users/${id}/sign-out`);
    german(confirm, 200);
    expect(confirm.text).toContain('<p>Das bewirkt:</p>');
    expect(confirm.text).toContain('<li>Beendet jede Sitzung des Kontos in jedem Browser; die Apps, bei denen es angemeldet war, werden benachrichtigt (Back-Channel-Logout).</li>');
    expect(confirm.text).toContain('<button type="submit" id="confirm-action" class="danger">Überall abmelden</button>');
    expect(confirm.text).toContain('id="cancel">Abbrechen</a>');
    const done = await browser.post(`/admin/users/${id}/sign-out`, { csrf: csrfOf(confirm.text) });
    expect(done.status).toBe(303);
    const after = await browser.get(`/admin/users/${id}`);
    german(after, 200);
    expect(after.text).toContain(`<p class="notice" role="status" id="flash">${user.username} wurde überall abgemeldet: 0 Sitzungen und 0 Berechtigungen beendet.</p>`);

    const unlocked = await browser.post(`/admin/users/${id}/unlock`, { csrf: csrfOf(after.text) });
    expect(unlocked.status).toBe(303);
    expect((await browser.get(`/admin/users/${id}`)).text).toContain(`<p class="notice" role="status" id="flash">${user.username} hatte keine erfassten Fehlversuche; das Konto ist nicht gesperrt.</p>`);
  });

  it("refusals in German: a service's code, a missing field, the CSRF check; the switch returns to the form's page", async () => {
    const newUser = await browser.get('/admin/users/new');
    const csrf = csrfOf(newUser.text);
    const taken = await browser.post('/admin/users/new', { csrf, username: admin.username, name: 'Zweite', email: 'zweite@example.com', groups: '' });
    german(taken, 409);
    expect(taken.text).toContain('<div class="error" role="alert" id="form-error"><p>Dieser Benutzername ist schon vergeben.</p><p class="muted">Fehlercode: <code>duplicate_username</code></p></div>');
    expect(taken.text).toContain('<label for="username">Benutzername</label>');
    expect(taken.text).toContain('<input type="hidden" name="return" value="/admin/users/new">');

    const noScope = await browser.post('/admin/scopes', { csrf, groups: 'editors' });
    german(noScope, 400);
    expect(noScope.text).toContain('<div class="error" role="alert" id="console-error"><p>Scope ist erforderlich.</p><p class="muted">Fehlercode: <code>invalid_input</code></p></div>');
    expect(noScope.text).toContain('<p><a href="/admin">Zurück</a></p>');

    const badGroups = await browser.post('/admin/scopes', { csrf, scope: 'movies:read', groups: 'a b' });
    german(badGroups, 400);
    expect(badGroups.text).toContain('<p>Nennen Sie mindestens eine Gruppe; ein Gruppenname hat 1 bis 64 Zeichen ohne Leerzeichen oder Kommas.</p><p class="muted">Fehlercode: <code>invalid_groups</code>, Feld <code>groups</code></p>');

    const forged = await browser.post('/admin/keys/rotate', { csrf: 'forged' });
    german(forged, 403);
    expect(h1(forged.text)).toBe('Nicht erlaubt');
    expect(forged.text).toContain('<p>Dieses Formular stammt nicht von Ihrer Seite der Verwaltungskonsole, daher wurde nichts geändert. Öffnen Sie die Seite erneut und wiederholen Sie die Aktion.</p>');

    const filter = await browser.get('/admin/audit?since=gestern');
    expect(filter.text).toContain('<p>Eine Zeit muss ISO 8601 mit Zone (2026-11-23T10:00:00Z) oder eine Dauer zurück ab jetzt (30m, 24h, 7d) sein, und „Bis“ muss nach „Seit“ liegen.</p><p class="muted">Fehlercode: <code>invalid_time</code>, Feld <code>since</code></p>');
    expect(filter.text).toContain('<p id="no-events">Es wurde nichts gesucht: Korrigieren Sie den Filter oben.</p>');
  });

  it('the copy button of a new secret speaks German', async () => {
    const page = await browser.get('/admin/clients/new');
    const created = await browser.post('/admin/clients', { csrf: csrfOf(page.text), client_id: 'deutsch-app', type: 'confidential', name: 'Deutsche App', redirect_uris: 'https://app.example/cb', 'grant.authorization_code': 'on', auth_method: 'client_secret_basic' });
    german(created, 201);
    expect(created.text).toContain('<p class="notice" role="status" id="flash">Der Client deutsch-app ist registriert.</p>');
    expect(created.text).toContain('<button type="button" class="secondary" id="copy-secret" data-copy="client-secret" hidden>Geheimnis kopieren</button> <span id="copy-status" role="status" data-copied="In die Zwischenablage kopiert." data-copy-failed="Kopieren nicht möglich: Markieren Sie den Text und kopieren Sie ihn von Hand."></span>');
  });

  it('Accept-Language alone chooses German, and English stays English', async () => {
    const other = await signedInConsole(server, await server.createUser({ groups: ['auditors'] }), clock, ip());
    expect(h1((await other.get('/admin/keys')).text)).toBe('Signing keys');
    other.jar.defaultHeaders['accept-language'] = 'de-AT,de;q=0.9,en;q=0.5';
    const page = await other.get('/admin/keys');
    german(page, 200);
    expect(page.text).toContain('<p class="readonly-banner" id="readonly-banner">Nur Lesezugriff: Sie sehen hier alles und können nichts ändern.</p>');
    expect(page.text).toContain('<p class="muted" id="read-only-note">Sie haben nur Lesezugriff: Sie sehen die Schlüssel, können sie aber nicht wechseln.</p>');
    expect(page.headers.get('vary')).toBe('Accept-Language, Cookie');
  });

  it('the pages outside the frame: a non-admin, a sign-in that did not complete, a stale sign-in', async () => {
    const outsider = consoleBrowser(server, ip());
    outsider.jar.defaultHeaders['accept-language'] = 'de';
    const start = await outsider.get('/admin');
    await completeSignIn(server, outsider, await server.createUser({ groups: ['editors'] }), start.location!, clock);
    const refused = await outsider.get('/admin');
    german(refused, 403);
    expect(h1(refused.text)).toBe('Sie haben keinen Zugang zur Verwaltungskonsole');
    expect(refused.text).toContain('Die Verwaltungskonsole steht Mitgliedern der Gruppe „admins“ offen, und Mitgliedern der Gruppe „auditors“ nur lesend.');
    expect(refused.text).toContain('<li><a href="/oauth2/v1/logout">Abmelden und als jemand anderes anmelden</a></li>');

    const callback = await outsider.get('/admin/callback?error=access_denied&state=%2Fadmin');
    german(callback, 400);
    expect(h1(callback.text)).toBe('Anmeldung nicht abgeschlossen');
    expect(callback.text).toContain('<a href="/admin">Erneut bei der Verwaltungskonsole anmelden</a>');

    const csrf = csrfOf((await browser.get('/admin/keys/rotate')).text);
    clock.now += 600_001;
    const stale = await browser.post('/admin/keys/rotate', { csrf });
    german(stale, 401);
    expect(h1(stale.text)).toBe('Melden Sie sich erneut an, um fortzufahren');
    expect(stale.text).toContain('<input type="hidden" name="return" value="/admin/keys">');
  });
});
