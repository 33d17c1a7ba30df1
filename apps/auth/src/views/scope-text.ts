/**
 * What a scope asks, in the page's language. Rules:
 * - English shows the description of consent/scope-descriptions.ts;
 * - another language shows its catalogue's `scope.<scope>` for an OpenID or admin scope, its
 *   `scope.collectionRead` / `scope.collectionWrite` for `<collection>:read|write`, and the
 *   scope's own name otherwise (as English does), so nothing asked for is ever hidden.
 */
import type { ScopeDescription } from '../consent/scope-descriptions.ts';
import type { PageLanguage } from '../i18n/page-language.ts';

const COLLECTION_SCOPE = /^([a-z][a-z0-9_-]*):(read|write)$/;

export function scopeText(scope: ScopeDescription, language: PageLanguage): string {
  if (language.locale === 'en') return scope.description;
  if (language.has(`scope.${scope.scope}`)) return language.text(`scope.${scope.scope}`);
  const collection = COLLECTION_SCOPE.exec(scope.scope);
  if (collection) return collection[2] === 'read' ? language.t('scope.collectionRead', { name: collection[1]! }) : language.t('scope.collectionWrite', { name: collection[1]! });
  return scope.description;
}
