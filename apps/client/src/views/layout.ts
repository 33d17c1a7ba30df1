import { html, type SafeHtml } from '@gatehouse/html';

export interface LayoutOptions {
  /** The app's name (its client id), shown in the header and the title. */
  appName: string;
  title: string;
  body: SafeHtml;
}

/** The page frame of every relying-party page; its only assets are the same-origin stylesheet and favicon (CSP). */
export function layout({ appName, title, body }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${appName}</title>
<link rel="stylesheet" href="/static/client.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="bar"><span class="app" id="app-name">${appName}</span><span class="muted">a Gatehouse relying party</span></header>
<main class="card">
${body}
</main>
</body>
</html>
`.value;
}
