/**
 * Import rules of the monorepo, checked by `pnpm lint` (dependency-cruiser). Rules:
 * - packages/* import no app;
 * - the production code of an app (apps/<name>/src) imports no other app; tests may run a real
 *   authorization server through @gatehouse/auth/testing (docs/conventions.md §3);
 * - in apps/auth/src, the stores and the lower floors import no feature folder;
 * - nothing imports apps/auth/src/oidc/ but the protocol wiring: oidc/ itself, the composition
 *   (app.ts, services.ts, main.ts) and interactions/, the interaction half of the protocol (its
 *   steps finish oidc-provider's interactions: the consent step writes the grant the provider
 *   reads, the account-selection step answers the provider's own prompt);
 * - no module reaches itself through its imports (no cycles).
 *
 * The floors of apps/auth/src, from the ground up (an import runs downward or sideways only):
 * 1. plumbing: errors, crypto, storage, config, logging, metrics, http, views, health;
 * 2. stores and their services: accounts, audit, clients, consent, devices, keys, mfa, policy,
 *    push, recovery, regulation, revocation, sessions;
 * 3. features: account, admin, authenticator, interactions, passkeys, secrets, oidc (the
 *    protocol), cli, dev;
 * 4. composition: services.ts, app.ts, main.ts.
 * Floors 1 and 2 make up the lower floors of the rule below; a store is a `*-store.ts` file,
 * wherever it lives.
 */
const AUTH = '^apps/auth/src/';
const FEATURES = '(account|admin|authenticator|interactions|passkeys|cli|dev|secrets|oidc)';
const LOWER = '(errors|crypto|storage|config|logging|metrics|http|views|health|accounts|audit|clients|consent|devices|keys|mfa|policy|push|recovery|regulation|revocation|sessions)';

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
      name: 'only-protocol-wiring-imports-oidc',
      comment: 'Only the protocol wiring imports apps/auth/src/oidc/: oidc/ itself, app.ts, services.ts, main.ts and interactions/ (the interaction half of the protocol).',
      severity: 'error',
      from: { path: AUTH, pathNot: `${AUTH}(oidc/|interactions/|app\\.ts$|services\\.ts$|main\\.ts$)` },
      to: { path: `${AUTH}oidc/` },
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
