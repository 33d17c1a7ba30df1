import { html, type SafeHtml } from '@gatehouse/html';

export interface LayoutOptions {
  title: string;
  body: SafeHtml;
  scripts?: string[];
}

/** The page frame every authorization-server page shares; assets are same-origin only (CSP). */
export function layout({ title, body, scripts = [] }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Gatehouse</title>
<link rel="stylesheet" href="/static/gatehouse.css">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
${scripts.map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
<main class="card">
<p class="brand">Gatehouse</p>
${body}
</main>
</body>
</html>
`.value;
}
