import { html } from '@gatehouse/html';
import { layout } from './layout.ts';

/** One kept message as the outbox page shows it (mail/dev-outbox.ts keeps them). */
interface OutboxEntry {
  readonly id: number;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly sentAt: number;
  readonly links: readonly string[];
}

/** The development outbox: what Gatehouse would have mailed, newest first. */
export function outboxPage(messages: readonly OutboxEntry[]): string {
  return layout({
    title: 'Development outbox',
    body: html`<h1>Development outbox</h1>
<p class="muted">Mail is not sent in development without AUTH_SMTP_URL; it lands here (and under the data directory's outbox/). This page does not exist in production.</p>
${messages.length === 0 ? html`<p id="outbox-empty">No mail yet.</p>` : ''}
${messages.map(
  (m) => html`<section class="outbox-message" id="mail-${String(m.id)}" aria-labelledby="mail-${String(m.id)}-subject">
<h2 id="mail-${String(m.id)}-subject">${m.subject}</h2>
<p class="muted">To <strong>${m.to}</strong> · ${new Date(m.sentAt).toISOString()}</p>
${m.links.map((link) => html`<p><a href="${link}" class="outbox-link">${link}</a></p>`)}
<pre class="outbox-text">${m.text}</pre>
</section>`,
)}`,
  });
}
