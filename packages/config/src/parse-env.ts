import type { z } from 'zod';
import { ConfigError } from './config-error.ts';

/**
 * Validates the environment against an app's schema. The first problem becomes one
 * {@link ConfigError} naming the variable: `invalid setting API_PORT: …`.
 */
export function parseEnv<Schema extends z.ZodType>(schema: Schema, env: Record<string, string | undefined>): z.output<Schema> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid setting ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}
