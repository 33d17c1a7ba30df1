export { ConfigError } from './config-error.ts';
export { parseEnv } from './parse-env.ts';
export { loadOrCreateSecretsFile } from './secrets-file.ts';
