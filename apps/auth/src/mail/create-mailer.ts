/**
 * The mailer the configuration asks for (config.mail): SMTP, the development outbox, or none
 * (production without AUTH_SMTP_URL: self-service recovery is not offered).
 */
import { join } from 'node:path';
import type { AuthConfig } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { createDevOutbox } from './dev-outbox.ts';
import type { Mailer } from './mailer.ts';
import { createSmtpMailer } from './smtp-mailer.ts';

export function createMailer(config: Pick<AuthConfig, 'mail' | 'dataDir'>, deps: { logger: Logger; clock: () => number }): Mailer | undefined {
  const mail = config.mail;
  if (mail.transport === 'smtp') return createSmtpMailer(mail);
  if (mail.transport === 'outbox') return createDevOutbox({ directory: join(config.dataDir, 'outbox'), ...deps });
  return undefined;
}
