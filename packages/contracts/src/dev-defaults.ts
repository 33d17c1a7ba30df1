/**
 * Well-known development credentials, so `pnpm dev` works with no set-up. Every app refuses
 * them under NODE_ENV=production: real deployments take their secrets from the environment.
 */
export const DEV_DEFAULTS = {
  demoUser: { username: 'demo', password: 'gatehouse-demo', email: 'demo@example.com', name: 'Demo User', groups: ['users', 'demo', 'editors'] },
  clientSecrets: {
    'app-one': 'dev-app-one-secret-not-for-production',
    'app-two': 'dev-app-two-secret-not-for-production',
    api: 'dev-api-secret',
  },
} as const;
