/**
 * What the authorization server sends by e-mail, and the one seam it is sent through. Rules:
 * - a message has one recipient, a subject, a plain-text body and a simple HTML body (the same words);
 * - `send` resolves when the message was handed over (to the SMTP server, or to the development
 *   outbox) and rejects when it could not be; callers that must not reveal whether an account
 *   exists (forgot password) do not wait for it in the request;
 * - a message may carry a one-time link (a credential): a Mailer never logs a body in production.
 */
export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface Mailer {
  /** `smtp` (AUTH_SMTP_URL) or `outbox` (development: kept in memory and under the data dir, link logged). */
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
}
