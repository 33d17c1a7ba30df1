/**
 * The console's Signing keys section (/admin/keys), on the key service authctl and /admin/v1 use
 * (admin/key-admin.ts). Rules:
 * - the page lists the keys in JWKS order with state and age (by the server's clock), never key
 *   material;
 * - "rotate now" is confirmed on a page saying what will happen (GET), then done (POST): the
 *   service rotates, audits with the admin as actor and reloads this instance's keys; the answer
 *   is 303 to the page with a notice naming the new key (and until when a retired one stays
 *   published, in UTC: a notice is text, without a local time).
 */
import type { KeyAdmin } from '../admin/key-admin.ts';
import type { ConsoleSection } from './console-routes.ts';
import { formatDateTime } from '@gatehouse/html/i18n';
import { KEYS_PATH, keysBody } from './keys-page.ts';

export interface KeysSectionDeps {
  keys: KeyAdmin;
  clock: () => number;
}

export const keysSection: ConsoleSection<KeysSectionDeps> = {
  nav: { key: 'keys', href: KEYS_PATH },
  register(routes, deps) {
    routes.page(KEYS_PATH, async (request) => {
      request.render({ title: request.language.t('console.nav.keys'), body: keysBody({ language: request.language, keys: await deps.keys.list(), now: deps.clock(), readOnly: !request.viewer.canWrite }) });
    });

    routes.page(`${KEYS_PATH}/rotate`, async (request) => {
      const { t } = request.language;
      const signing = (await deps.keys.list()).find((k) => k.state === 'active');
      request.confirm(t('console.keys.rotate.title'), {
        heading: t('console.keys.rotate.heading'),
        consequences: [t('console.keys.rotate.create'), signing ? t('console.keys.rotate.retireKid', { kid: signing.kid }) : t('console.keys.rotate.retire'), t('console.keys.rotate.drop')],
        action: `${KEYS_PATH}/rotate`,
        submitLabel: t('console.keys.rotate.submit'),
        cancelHref: KEYS_PATH,
      });
    }, { write: true });

    routes.action(`${KEYS_PATH}/rotate`, async (request) => {
      const rotation = await deps.keys.rotate(request.admin.actor);
      const { t, locale } = request.language;
      const retired = rotation.retired.length ? t('console.keys.flash.retired', { kids: rotation.retired.join(', '), at: formatDateTime(rotation.retiredExpireAt, locale) }) : '';
      request.redirect(KEYS_PATH, { kind: 'notice', text: t('console.keys.flash.rotated', { kid: rotation.kid, retired }) });
    }, { back: () => KEYS_PATH });
  },
};
