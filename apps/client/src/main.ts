import { runServer } from '@gatehouse/runtime';

await runServer({ name: 'client', load: () => import('./server.ts') });
