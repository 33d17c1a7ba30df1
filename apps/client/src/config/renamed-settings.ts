/**
 * Variables of the relying party that were renamed, old name → new name. Setting an old name
 * fails start-up (in loadConfig, the launcher and the migrate step) with the new name: never a
 * silent alias.
 * - APP_ONE_DATABASE_URL / APP_TWO_DATABASE_URL: the launcher's per-app database URLs, read
 *   under a different name than the app's own CLIENT_DATABASE_URL, so one deployment had to set
 *   both. CLIENT_DATABASE_URL is now the one name, shared by both apps under the launcher.
 */
export const RENAMED_SETTINGS: Readonly<Record<string, string>> = {
  APP_ONE_DATABASE_URL: 'CLIENT_DATABASE_URL',
  APP_TWO_DATABASE_URL: 'CLIENT_DATABASE_URL',
};
