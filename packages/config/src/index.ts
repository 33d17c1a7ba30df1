export { ConfigError } from './config-error.ts';
export { ConfigProblems } from './config-problems.ts';
export { parseEnv, refuseRenamed } from './parse-env.ts';
export type { ParseEnvOptions } from './parse-env.ts';
export { bool, checkedString, list, logLevel, LOG_LEVELS, port, seconds, trimTrailingSlashes, url } from './env-primitives.ts';
export { loadOrCreateSecretsFile } from './secrets-file.ts';
