/**
 * A real SMTP server (the `smtp-server` package) listening on 127.0.0.1 for a test: every message
 * nodemailer hands over is kept with its envelope and raw text, and `next()` waits for the next
 * one (no sleeps). Options choose what the server offers (STARTTLS, TLS from the start, AUTH).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  /** The raw message with quoted-printable soft line breaks and =XX escapes undone (good enough to find text and links). */
  decoded: string;
  user: string | undefined;
}

export interface SmtpSink {
  port: number;
  received: ReceivedMail[];
  next(): Promise<ReceivedMail>;
  close(): Promise<void>;
}

const decodeQuotedPrintable = (raw: string): string =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

export async function startSmtpSink(options: { starttls?: boolean; secure?: boolean; credentials?: { user: string; pass: string } } = {}): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  const waiting: ((mail: ReceivedMail) => void)[] = [];
  const server = new SMTPServer({
    secure: options.secure ?? false,
    hideSTARTTLS: !options.starttls,
    authOptional: !options.credentials,
    disabledCommands: [...(options.credentials ? [] : ['AUTH']), ...(options.starttls ? [] : ['STARTTLS'])],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      const ok = options.credentials && auth.username === options.credentials.user && auth.password === options.credentials.pass;
      callback(ok ? null : new Error('Invalid username or password'), ok ? { user: auth.username } : undefined);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail: ReceivedMail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          decoded: decodeQuotedPrintable(raw),
          user: typeof session.user === 'string' ? session.user : undefined,
        };
        const waiter = waiting.shift();
        if (waiter) waiter(mail);
        else received.push(mail);
        callback();
      });
    },
  });
  // A client that refuses the server's certificate closes the connection: expected in a refusal test.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    next: () => {
      const kept = received.shift();
      return kept ? Promise.resolve(kept) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
