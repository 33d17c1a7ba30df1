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
  /** The Subject header, its encoded words (RFC 2047) decoded. */
  subject: string;
  /** The text/plain part (or the whole body of a single-part message), decoded as UTF-8. */
  text: string;
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

const headerOf = (head: string, name: string): string | undefined =>
  new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head)?.[1]?.replace(/\r?\n[ \t]/g, ' ').trim();

const decodeWords = (value: string): string =>
  value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?([\w-]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, encoding: string, data: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : qpBytes(data.replace(/_/g, ' ')).toString('utf8'),
    );

const qpBytes = (data: string): Buffer => {
  const bytes: number[] = [];
  const plain = data.replace(/=\r?\n/g, '');
  for (let i = 0; i < plain.length; i++) {
    const hex = plain[i] === '=' ? /^[0-9A-F]{2}$/i.exec(plain.slice(i + 1, i + 3))?.[0] : undefined;
    if (hex) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(plain[i]!, 'utf8'));
  }
  return Buffer.from(bytes);
};

/** The subject and the text/plain part of a raw message. */
function readText(raw: string): { subject: string; text: string } {
  const split = (entity: string) => {
    const at = entity.search(/\r?\n\r?\n/);
    return { head: entity.slice(0, at), body: entity.slice(at).replace(/^\r?\n\r?\n/, '') };
  };
  const message = split(raw);
  let part = message;
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headerOf(message.head, 'Content-Type') ?? '')?.[1];
  if (boundary) {
    const parts = message.body.split(`--${boundary}`).slice(1).map(split);
    part = parts.find((p) => /^text\/plain/i.test(headerOf(p.head, 'Content-Type') ?? '')) ?? part;
  }
  const encoding = (headerOf(part.head, 'Content-Transfer-Encoding') ?? '7bit').toLowerCase();
  const body = part.body.replace(/\r?\n$/, '');
  const text = encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : encoding === 'quoted-printable' ? qpBytes(body).toString('utf8') : body;
  return { subject: decodeWords(headerOf(message.head, 'Subject') ?? ''), text: text.replace(/\r\n/g, '\n') };
}

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
          ...readText(raw),
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
