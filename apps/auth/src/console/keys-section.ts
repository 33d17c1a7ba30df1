/**
 * The console's Signing keys section (/admin/keys), on the key service authctl and /admin/v1 use
 * (admin/key-admin.ts). Rules:
 * - the page lists the keys in JWKS order with state and age (by the server's clock), never key
 *   material;
 * - "rotate now" is confirmed on a page saying what will happen (GET), then done (POST): the
 *   service rotates, audits with the admin as actor and reloads this instance's keys; the answer
 *   is 303 to the page with a notice naming the new key.
 */
import type { KeyAdmin } from '../admin/key-admin.ts';
import type { ConsoleSection } from './console-routes.ts';
import { consoleDate } from '../views/console-dashboard-page.ts';
import { KEYS_PATH, keysBody } from './keys-page.ts';

export interface KeysSectionDeps {
  keys: KeyAdmin;
  clock: () => number;
}

export const keysSection: ConsoleSection<KeysSectionDeps> = {
  nav: { key: 'keys', href: KEYS_PATH, label: 'Signing keys' },
  register(routes, deps) {
    routes.page(KEYS_PATH, async (request) => {
      request.render({ title: 'Signing keys', body: keysBody({ keys: await deps.keys.list(), now: deps.clock(), readOnly: !request.viewer.canWrite }) });
    });

    routes.page(`${KEYS_PATH}/rotate`, async (request) => {
      const signing = (await deps.keys.list()).find((k) => k.state === 'active');
      request.confirm('Rotate the signing key', {
        heading: 'Rotate the signing key now?',
        consequences: [
          'Create a new signing key that signs every token from now on.',
          signing ? `Retire the current key ${signing.kid}: it stays in the JWKS until the tokens it signed have expired.` : 'Retire the current key: it stays in the JWKS until the tokens it signed have expired.',
          'Drop any pending key that was waiting to sign.',
        ],
        action: `${KEYS_PATH}/rotate`,
        submitLabel: 'Rotate now',
        cancelHref: KEYS_PATH,
      });
    }, { write: true });

    routes.action(`${KEYS_PATH}/rotate`, async (request) => {
      const rotation = await deps.keys.rotate(request.admin.actor);
      const retired = rotation.retired.length ? ` Retired ${rotation.retired.join(', ')}, published until ${consoleDate(rotation.retiredExpireAt)}.` : '';
      request.redirect(KEYS_PATH, { kind: 'notice', text: `New signing key ${rotation.kid}.${retired}` });
    }, { back: () => KEYS_PATH });
  },
};
