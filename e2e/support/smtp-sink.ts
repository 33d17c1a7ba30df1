/**
 * A real SMTP server (the `smtp-server` package) on 127.0.0.1 for the browser tests: the auth server
 * sends through it with AUTH_SMTP_URL=smtp://127.0.0.1:<port>?tls=off, and `nextLink()` waits for the
 * next message and answers the first https?:// link in it (quoted-printable soft breaks undone).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  port: number;
  nextMail(): Promise<{ to: string[]; text: string }>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const kept: { to: string[]; text: string }[] = [];
  const waiting: ((mail: { to: string[]; text: string }) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8').replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), text };
        const waiter = waiting.shift();
        if (waiter) waiter(mail);
        else kept.push(mail);
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    nextMail: () => {
      const mail = kept.shift();
      return mail ? Promise.resolve(mail) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
