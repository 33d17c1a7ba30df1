/** `pnpm start`: the built app-one and app-two (NODE_ENV=production: secrets come from the environment). */
import { launch } from './launcher.ts';

launch();
