import { appSuiteConfig } from '../../vitest.app-suites.ts';

// Real-token suites run the authorization server's login flow (argon2, TOTP); on a busy
// machine their set-up takes longer than the other apps' suites.
export default appSuiteConfig({ hookTimeout: 60_000 });
