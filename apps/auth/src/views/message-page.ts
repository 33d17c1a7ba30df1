import { html } from '@gatehouse/html';
import { layout } from './layout.ts';

/** A page with a title and one message: errors, "signed out", "too many attempts". */
export function messagePage(title: string, message: string, options: { code?: string; requestId?: string; way?: { label: string; href: string } } = {}): string {
  return layout({
    title,
    body: html`<h1>${title}</h1>
<p class="${options.code ? 'error' : ''}" role="${options.code ? 'alert' : 'status'}">${message}</p>
${options.way ? html`<p><a class="button" id="way-on" href="${options.way.href}">${options.way.label}</a></p>` : ''}
${options.code ? html`<p class="muted">Error code: <code>${options.code}</code>${options.requestId ? html` · request ${options.requestId}` : ''}</p>` : ''}`,
  });
}
