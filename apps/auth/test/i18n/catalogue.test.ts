import { describe, expect, it } from 'vitest';
import { MISSING_MESSAGE_MARKER } from '@gatehouse/html/i18n';
import { de } from '../../src/i18n/de.ts';
import { en } from '../../src/i18n/en.ts';
import { languageFor } from '../../src/i18n/page-language.ts';
import { AuthError, ERROR_DETAILS } from '../../src/errors/auth-error.ts';

// Every language has every key of the English catalogue, and nothing else; each message renders
// to text without the missing-message marker.
const SAMPLE = { n: 2, sessions: 2, grants: 1, max: 64, label: 'Name', kid: 'k1', kids: 'k0', retired: '', items: 'a', removed: 'b', search: 'ada', groups: 'admins', field: 'name', method: 'none', grace: '1 h', at: 'today', added: 'today', used: 'never', badge: 'x', role: 'admin', adminGroup: 'admins', readOnlyGroup: 'auditors', admin: 'ada', account: 'ada', scopes: 'openid', remaining: 3, others: 2, ip: '203.0.113.7', factor: 'Passkey', user: 'ada', device: 'Phone', client: 'App', name: 'App', app: 'App', provider: 'Provider', id: 'req-1', wait: '5 s', username: 'ada', count: 3, minutes: 30, scope: 'openid', code: 'ABCD-EFGH', date: 'today', expires: 'soon', hours: 24, email: 'ada@example.org', time: '1:00', reason: 'Refused.' };

describe('the authorization server catalogues', () => {
  it('German has exactly the English keys', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
  });

  it.each([
    ['en', en],
    ['de', de],
  ] as const)('every %s message renders without the missing marker', (_, catalogue) => {
    for (const [key, message] of Object.entries(catalogue)) {
      const text = String(typeof message === 'function' ? (message as (v: unknown) => unknown)(SAMPLE) : message);
      expect(text, key).not.toBe('');
      expect(text, key).not.toContain(MISSING_MESSAGE_MARKER);
    }
  });

  it('German differs from English wherever the text is not a name', () => {
    const same = Object.keys(en).filter((key) => typeof en[key as keyof typeof en] === 'string' && en[key as keyof typeof en] === de[key as keyof typeof de]);
    // The console's loanwords and names: Client, Logo, Name, Scope, Server, Status, Version.
    expect(same.sort()).toEqual([
      'account.name',
      'account.section.apps',
      'activate.code',
      'authenticator.brand',
      'authenticator.browser',
      'authenticator.title',
      'console.audit.client',
      'console.clients.back',
      'console.clients.logo',
      'console.clients.name',
      'console.dashboard.server',
      'console.dashboard.version',
      'console.nav.clients',
      'console.scopes.scope',
      'console.users.name',
      'console.users.status',
      'layout.brand',
      'layout.titleSuffix',
    ]);
  });

  it('an error shows its own message in English and the text of its code in German, with the wait of a 429', () => {
    const error = new AuthError(401, 'invalid_credentials', 'Invalid username or password.');
    expect(languageFor('en').errorText(error)).toBe('Invalid username or password.');
    expect(languageFor('de').errorText(error)).toBe('Benutzername oder Passwort ist falsch.');
    const wait = new AuthError(429, 'too_many_attempts', 'Too many attempts. Try again in 2 minutes.', { headers: { 'Retry-After': '90' } });
    expect(languageFor('de').errorText(wait)).toBe('Zu viele Versuche. Versuchen Sie es in 2 Minuten erneut.');
    const short = new AuthError(429, 'too_many_attempts', 'x', { headers: { 'Retry-After': '1' } });
    expect(languageFor('de').errorText(short)).toBe('Zu viele Versuche. Versuchen Sie es in 1 Sekunde erneut.');
  });

  it('a refusal its code says too generically shows its own text in German, its message in English', () => {
    const choice = new AuthError(400, 'invalid_request', 'Field "choice" must be "continue" or "another".', { detail: 'invalid_request.selectAccountChoice' });
    expect(languageFor('en').errorText(choice)).toBe('Field "choice" must be "continue" or "another".');
    expect(languageFor('de').errorText(choice)).toBe('Wählen Sie „Weiter als …“ oder „Anderes Konto verwenden“.');
    // A detail of another code is not this error's: the code's own text.
    expect(languageFor('de').errorText({ code: 'invalid_code', message: 'x', headers: {}, detail: 'invalid_request.selectAccountChoice' })).toBe('Dieser Code ist nicht richtig.');
    for (const detail of ERROR_DETAILS) {
      expect(languageFor('de').text(`error.${detail}`), detail).not.toBe(languageFor('de').text(`error.${detail.split('.')[0]!}`));
    }
  });

  it('a key the catalogue lacks renders as the marker', () => {
    expect(languageFor('de').text('error.no_such_code')).toBe(`${MISSING_MESSAGE_MARKER}error.no_such_code}}`);
  });
});
