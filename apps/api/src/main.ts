import { runServer } from '@gatehouse/runtime';

await runServer({ name: 'api', load: () => import('./server.ts') });
