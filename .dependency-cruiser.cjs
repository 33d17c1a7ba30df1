/**
 * Import rules of the monorepo, checked by `pnpm lint` (dependency-cruiser). Rules:
 * - packages/* import no app;
 * - the production code of an app (apps/<name>/src) imports no other app; tests may run a real
 *   authorization server through @gatehouse/auth/testing (docs/conventions.md §3);
 * - in apps/auth/src, the stores and the lower floors import no feature folder;
 * - the composition files are imported from above only: no lower floor and no store imports
 *   app.ts, services.ts, server.ts or main.ts, and no feature folder imports app.ts, server.ts
 *   or main.ts (services.ts, the composed stores, stands on the features' floor: the CLI and
 *   the dev seed take it);
 * - the registries (passkeys/, federation/) import no other feature folder: the operator
 *   services (admin/) and the sign-in steps stand on them, not the other way round;
 * - only the CLI, the dev seed and the composition import services.ts; a handler declares the
 *   stores it uses from auth-stores.ts, which stands below the protocol layer;
 * - nothing imports apps/auth/src/oidc/ but the protocol wiring: oidc/ itself and the
 *   composition; what an interaction step shares with the protocol lives on a lower floor
 *   (clients/first-party.ts, views/select-account-page.ts, regulation/);
 * - every import resolves to a file or a package;
 * - no module reaches itself through its imports (no cycles).
 *
 * The floors of apps/auth/src, from the ground up (an import runs downward or sideways only;
 * `farm-studio look apps/auth` draws them):
 * 1. plumbing: errors, storage, logging, metrics, mfa, health, crypto;
 * 2. stores and the services on them: sessions, revocation, recovery, devices, accounts, clients,
 *    regulation, policy, config, audit, consent, keys, push;
 * 3. pages and request plumbing: i18n (the pages' languages: catalogues, negotiation), below
 *    views and http (the switch's route, http/language-switch.ts); mail (the mailer: SMTP or the
 *    development outbox, whose page renders a view);
 *    auth-stores.ts (the stores' types, for the handlers);
 * 4. features: passkeys (ceremonies and their stores), admin, secrets, oidc (the protocol), federation
 *    (upstream identity providers: their registry and the sign-in with them); logout (what a
 *    sign-out leaves for its pages, and "Sign out everywhere" from them);
 *    services.ts (the composed stores); interactions, cli, dev; account, authenticator, console
 *    (the admin console, on admin/'s services);
 * 5. composition: app.ts, server.ts, main.ts.
 * Floors 1 to 3 make up the lower floors of the rules below; a store is a `*-store.ts` file,
 * wherever it lives.
 */
const AUTH = '^apps/auth/src/';
const FEATURES = '(account|admin|authenticator|console|interactions|passkeys|cli|dev|secrets|oidc|federation|logout)';
const COMPOSITION = `${AUTH}(app|services|server|main)\\.ts`;
const LOWER = '(errors|crypto|storage|config|logging|metrics|http|views|i18n|health|accounts|audit|clients|consent|devices|keys|mfa|policy|push|recovery|regulation|revocation|sessions|mail)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'packages-import-no-app',
      comment: 'A shared package never imports an app: apps import packages, not the other way round.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'app-imports-no-other-app',
      comment: "An app's production code never imports another app (tests may, through @gatehouse/auth/testing).",
      severity: 'error',
      from: { path: '^apps/([^/]+)/src/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'lower-floor-imports-no-feature',
      comment: `A lower floor of apps/auth/src ${LOWER} imports no feature folder ${FEATURES}: move the shared piece down, or hand it in at composition.`,
      severity: 'error',
      from: { path: `${AUTH}${LOWER}/` },
      to: { path: `${AUTH}${FEATURES}/` },
    },
    {
      name: 'store-imports-no-feature',
      comment: 'A store (*-store.ts) imports no feature folder other than the one it lives in: it takes what it needs as arguments.',
      severity: 'error',
      from: { path: `${AUTH}([^/]+)/.*-store\\.ts$` },
      to: { path: `${AUTH}${FEATURES}/`, pathNot: `${AUTH}$1/` },
    },
    {
      name: 'lower-floor-imports-no-composition',
      comment: 'A lower floor or a store of apps/auth/src imports none of the composition files (app.ts, services.ts, server.ts, main.ts): it takes what it needs as arguments.',
      severity: 'error',
      from: { path: [`${AUTH}${LOWER}/`, `${AUTH}.*-store\\.ts$`] },
      to: { path: `${COMPOSITION}$` },
    },
    {
      name: 'feature-imports-no-top-floor',
      comment: 'A feature folder imports none of app.ts, server.ts, main.ts (the top floor); services.ts stands on its own floor.',
      severity: 'error',
      from: { path: `${AUTH}${FEATURES}/` },
      to: { path: `${AUTH}(app|server|main)\\.ts$` },
    },
    {
      name: 'languages-import-no-pages',
      comment: 'i18n/ (catalogues and negotiation) imports neither http/ nor views/: pages and request plumbing stand on it; a route of the switch lives in http/.',
      severity: 'error',
      from: { path: `${AUTH}i18n/` },
      to: { path: `${AUTH}(http|views)/` },
    },
    {
      name: 'registries-import-no-feature',
      comment: 'passkeys/ and federation/ import no other feature folder: move the shared piece down (audit/actor.ts, storage/key-cursor.ts), or hand it in at composition.',
      severity: 'error',
      from: { path: `${AUTH}(passkeys|federation)/` },
      to: { path: `${AUTH}${FEATURES}/`, pathNot: `${AUTH}$1/` },
    },
    {
      name: 'only-composition-imports-services',
      comment: 'Only the CLI, the dev seed and the composition files import services.ts; a handler takes the stores it uses through auth-stores.ts.',
      severity: 'error',
      from: { path: AUTH, pathNot: [`${AUTH}(cli|dev)/`, `${COMPOSITION}$`] },
      to: { path: `${AUTH}services\\.ts$` },
    },
    {
      name: 'only-protocol-wiring-imports-oidc',
      comment: 'Only the protocol wiring imports apps/auth/src/oidc/: oidc/ itself and the composition files (app.ts, services.ts, server.ts, main.ts).',
      severity: 'error',
      from: { path: AUTH, pathNot: [`${AUTH}oidc/`, `${COMPOSITION}$`] },
      to: { path: `${AUTH}oidc/` },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or a package: a path that names nothing is a mistake, not an import.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-circular',
      comment: 'No module reaches itself through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|coverage)/' },
    // Type-only imports are arrows between floors too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
