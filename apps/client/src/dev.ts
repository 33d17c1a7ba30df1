/** `pnpm dev`: app-one and app-two from source in one process (dev-apps.ts); the dev script's watcher restarts it on change. */
import { runDevApps } from './dev-apps.ts';

await runDevApps();
