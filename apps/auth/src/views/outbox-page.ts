import { html } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';
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

/**
 * The development outbox: what Gatehouse would have mailed, newest first, in the page's language;
 * each message as it was written (in the language of the request that caused it).
 */
export function outboxPage(messages: readonly OutboxEntry[], language: PageLanguage): string {
  const { t } = language;
  return layout({
    title: t('outbox.title'),
    language,
    body: html`<h1>${t('outbox.title')}</h1>
<p class="muted">${t('outbox.intro')}</p>
${messages.length === 0 ? html`<p id="outbox-empty">${t('outbox.empty')}</p>` : ''}
${messages.map(
  (m) => html`<section class="outbox-message" id="mail-${String(m.id)}" aria-labelledby="mail-${String(m.id)}-subject">
<h2 id="mail-${String(m.id)}-subject">${m.subject}</h2>
<p class="muted">${t('outbox.to', { to: html`<strong>${m.to}</strong>`, at: language.dateTime(m.sentAt) })}</p>
${m.links.map((link) => html`<p><a href="${link}" class="outbox-link">${link}</a></p>`)}
<pre class="outbox-text">${m.text}</pre>
</section>`,
)}`,
  });
}
