import { html } from '@gatehouse/html';
import type { WayOn } from '../errors/auth-error.ts';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';

/** A way on's label in the page's language. */
export function wayLabel(way: WayOn, language: PageLanguage): string {
  switch (way.says?.way) {
    case 'startAgain':
      return language.t('way.startAgain');
    case 'backTo':
      return language.t('way.backTo', { app: way.says.app });
    case 'continueTo':
      return language.t('way.continueTo', { app: way.says.app });
    case 'account':
      return language.t('way.account');
    default:
      return way.label;
  }
}

/** A page with a title and one message: errors, "signed out", "too many attempts". */
export function messagePage(title: string, message: string, options: { code?: string; requestId?: string; way?: WayOn; language?: PageLanguage } = {}): string {
  const language = options.language ?? ENGLISH;
  return layout({
    title,
    language,
    body: html`<h1>${title}</h1>
<p class="${options.code ? 'error' : ''}" role="${options.code ? 'alert' : 'status'}">${message}</p>
${options.way ? html`<p><a class="button" id="way-on" href="${options.way.href}">${wayLabel(options.way, language)}</a></p>` : ''}
${options.code ? html`<p class="muted">${language.t('message.errorCode')} <code>${options.code}</code>${options.requestId ? language.t('message.request', { id: options.requestId }) : ''}</p>` : ''}`,
  });
}
