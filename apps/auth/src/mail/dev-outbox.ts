/**
 * The development outbox: with no AUTH_SMTP_URL outside production, mail is not sent but kept,
 * so `pnpm dev` needs no mail server. Rules:
 * - each message is kept in memory (the newest OUTBOX_SIZE, newest first) for the development
 *   page /dev/outbox (mail/outbox-page.ts), and written to `<dataDir>/outbox/<time>-<n>.txt`;
 * - each message is logged (`mail.outbox`) with its recipient, subject and the links it carries,
 *   so the developer can follow a link from the terminal; this happens only in development;
 * - a file that cannot be written is logged and the message is still kept in memory.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logging/logger.ts';
import type { Mailer, MailMessage } from './mailer.ts';

export const OUTBOX_SIZE = 50;

export interface OutboxMessage extends MailMessage {
  readonly id: number;
  readonly sentAt: number;
  readonly links: readonly string[];
}

export interface DevOutbox extends Mailer {
  readonly kind: 'outbox';
  /** The kept messages, newest first. */
  messages(): readonly OutboxMessage[];
}

const linksOf = (text: string): string[] => [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]);

export function createDevOutbox(deps: { directory: string; logger: Logger; clock: () => number }): DevOutbox {
  const kept: OutboxMessage[] = [];
  let next = 1;
  return {
    kind: 'outbox',
    messages: () => [...kept],
    async send(message) {
      const sentAt = deps.clock();
      const entry: OutboxMessage = { ...message, id: next++, sentAt, links: linksOf(message.text) };
      kept.unshift(entry);
      kept.length = Math.min(kept.length, OUTBOX_SIZE);
      const file = join(deps.directory, `${sentAt}-${entry.id}.txt`);
      try {
        mkdirSync(deps.directory, { recursive: true });
        writeFileSync(file, `To: ${message.to}\nSubject: ${message.subject}\n\n${message.text}`, { mode: 0o600 });
      } catch (error) {
        deps.logger.warn({ event: 'mail.outbox_write_failed', err: error }, 'the development outbox could not write a message');
      }
      deps.logger.info({ event: 'mail.outbox', to: message.to, subject: message.subject, links: entry.links }, `development outbox: "${message.subject}" to ${message.to}; open /dev/outbox or follow ${entry.links[0] ?? 'the file'}`);
    },
  };
}
