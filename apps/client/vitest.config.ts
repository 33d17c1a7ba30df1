import { appSuiteConfig } from '../../vitest.app-suites.ts';

export default appSuiteConfig({ hookTimeout: 30_000 });
