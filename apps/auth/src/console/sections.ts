/**
 * The admin console's sections, in the order of its navigation. A section is a folder or file
 * under console/ exporting a ConsoleSection (console-routes.ts): its nav entry and a `register`
 * that adds its pages (`routes.page`) and forms (`routes.action`). Add a section here, one line.
 */
import type { ConsoleSection } from './console-routes.ts';
import type { ConsoleDeps } from './console-deps.ts';
import { dashboardSection } from './dashboard.ts';
import { usersSection } from './users/users-section.ts';
import { clientsSection } from './clients-section.ts';
import { scopesSection } from './scopes-section.ts';
import { keysSection } from './keys-section.ts';
import { auditSection } from './audit-section.ts';

export function consoleSections(): ConsoleSection<ConsoleDeps>[] {
  return [
    dashboardSection,
    usersSection,
    clientsSection,
    scopesSection,
    keysSection,
    auditSection,
  ];
}
