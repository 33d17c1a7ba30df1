/**
 * Writes a view in the negotiated representation. The Content-Type is the negotiated media
 * type: a vendor type (`application/vnd.gatehouse.v2+json`) when the client asked for one.
 */
import type { ApiContext } from '../http/state.ts';
import { HTML_CSP, viewToHtml } from './html.ts';
import type { Negotiated } from './negotiate.ts';
import { viewToJson, type View } from './view.ts';
import { viewToXml } from './xml.ts';

/** The Content-Type of a JSON answer: the vendor type when one was negotiated. */
export function jsonContentType(negotiated: Negotiated): string {
  return negotiated.contentType === 'application/json' ? 'application/json; charset=utf-8' : negotiated.contentType;
}

export function render(ctx: ApiContext, negotiated: Negotiated, status: number, view: View, columns: readonly string[]): void {
  ctx.status = status;
  switch (negotiated.representation) {
    case 'json':
      ctx.set('Content-Type', jsonContentType(negotiated));
      ctx.body = JSON.stringify(viewToJson(view));
      return;
    case 'xml':
      ctx.set('Content-Type', `${negotiated.contentType}; charset=utf-8`);
      ctx.body = viewToXml(view);
      return;
    case 'html':
      ctx.set('Content-Type', 'text/html; charset=utf-8');
      ctx.set('Content-Security-Policy', HTML_CSP);
      ctx.body = viewToHtml(view, columns);
      return;
  }
}
