import { runServer } from '@gatehouse/runtime';

await runServer({
  name: 'auth',
  // oidc-provider builds its list formatters while its modules are evaluated (oidc/deferred-list-format.ts).
  preload: async () => (await import('./oidc/deferred-list-format.ts')).deferListFormat(),
  load: () => import('./server.ts'),
});
