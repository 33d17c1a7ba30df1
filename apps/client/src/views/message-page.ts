import { html } from '@gatehouse/html';
import type { PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';

export interface MessagePageModel {
  appName: string;
  title: string;
  message: string;
  /** Stable error code, shown on error pages. */
  code?: string;
  requestId?: string;
  /** A link back into the app. */
  action?: { href: string; label: string };
  language: PageLanguage;
}

/** A page with a title and one message: errors and "signed out". */
export function messagePage(model: MessagePageModel): string {
  const { t } = model.language;
  return layout({
    appName: model.appName,
    title: model.title,
    language: model.language,
    body: html`<h1>${model.title}</h1>
<p class="${model.code ? 'error' : 'notice'}" role="${model.code ? 'alert' : 'status'}" id="message">${model.message}</p>
${model.code ? html`<p class="muted">${t('message.errorCode')} <code id="error-code">${model.code}</code>${model.requestId ? t('message.request', { id: model.requestId }) : ''}</p>` : ''}
${model.action ? html`<p><a class="button" href="${model.action.href}" id="next-action">${model.action.label}</a></p>` : ''}`,
  });
}
