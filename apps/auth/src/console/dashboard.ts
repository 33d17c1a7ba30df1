/**
 * The console's first page, /admin: the dashboard (admin/overview.ts read as it is now). Read
 * by admins and auditors alike; it changes nothing.
 */
import { dashboardBody } from '../views/console-dashboard-page.ts';
import type { ConsoleSection } from './console-routes.ts';
import type { ConsoleDeps } from './console-deps.ts';
import { auditTrailUrl, CONSOLE_PATH } from './console-paths.ts';

export const dashboardSection: ConsoleSection<Pick<ConsoleDeps, 'overview'>> = {
  nav: { key: 'dashboard', href: CONSOLE_PATH },
  register(routes, deps) {
    routes.page(CONSOLE_PATH, async ({ language, render }) => {
      const overview = await deps.overview.read();
      render({
        title: language.t('console.nav.dashboard'),
        body: dashboardBody({
          ...overview,
          language,
          usersUrl: `${CONSOLE_PATH}/users`,
          auditUrl: auditTrailUrl({ event: 'login.' }),
          keysUrl: `${CONSOLE_PATH}/keys`,
          lockedUserUrl: (username) => `${CONSOLE_PATH}/users?q=${encodeURIComponent(username)}`,
        }),
      });
    });
  },
};
