/** `pnpm dev`: app-one and app-two from source, restarted on change. */
import { launch } from './launcher.ts';

launch({ watch: true });
