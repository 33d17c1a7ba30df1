/**
 * Mail through an SMTP server with nodemailer (AUTH_SMTP_URL, AUTH_MAIL_FROM). Rules:
 * - `smtps://` speaks TLS from the first byte (port 465 by default);
 * - `smtp://` must upgrade with STARTTLS (port 587 by default): a server that does not offer it
 *   is refused, the message is not sent in clear; only `?tls=off` in the URL (a relay on the same
 *   host) sends without TLS (config/config.ts checks the URL);
 * - the server's certificate is checked (Node's trust store, NODE_EXTRA_CA_CERTS for a private CA);
 * - user and password come from the URL (percent-decoded), never logged;
 * - a connection, greeting or reply that stalls fails the send after the timeouts below;
 * - nodemailer is loaded with the first message, not at start: a server that sends no mail
 *   never loads it (bench/README.md, "Start-up").
 */
import type { Transporter } from 'nodemailer';
import type { MailSettings } from '../config/config.ts';
import type { Mailer } from './mailer.ts';

const CONNECTION_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

export function createSmtpMailer(settings: Extract<MailSettings, { transport: 'smtp' }>): Mailer {
  const url = new URL(settings.url);
  const implicit = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  const options = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : implicit ? 465 : 587,
    secure: implicit,
    requireTLS: !implicit && settings.tls === 'starttls',
    ignoreTLS: settings.tls === 'off',
    ...(user ? { auth: { user, pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: CONNECTION_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    logger: false,
  };
  let transport: Promise<Transporter> | undefined;
  const transporter = () => (transport ??= import('nodemailer').then(({ createTransport }) => createTransport(options)));
  return {
    kind: 'smtp',
    async send(message) {
      await (await transporter()).sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    },
  };
}
