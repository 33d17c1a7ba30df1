import { html } from '@gatehouse/html';

/**
 * The web authenticator's shell. Everything dynamic is done by the module script
 * /authenticator/app.js (same origin, no inline script; deferred like every module script),
 * which fills the elements below with textContent only.
 */
export function authenticatorPage(): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="theme-color" content="#4f46e5">
<title>Authenticator · Gatehouse</title>
<link rel="manifest" href="/authenticator/manifest.webmanifest">
<link rel="icon" href="/authenticator/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/gatehouse.css">
<script type="module" src="/authenticator/app.js"></script>
</head>
<body>
<main class="card">
<p class="brand">Gatehouse Authenticator</p>
<p class="error" role="alert" id="error" hidden></p>
<section id="loading"><p class="muted">Loading…</p></section>
<section id="enroll" hidden>
<h1>Set up this device</h1>
<p>Open <a href="/account/security">your account page</a> on a signed-in browser, choose “Add a device”, then scan its QR code or type its code here.</p>
<form id="enroll-form" autocomplete="off">
<label for="enroll-code">Enrollment code</label>
<p class="muted" id="enroll-code-hint">12 letters and digits, like ABCD-EFGH-JKMN. Case, spaces and dashes don't matter.</p>
<input id="enroll-code" name="code" required maxlength="64" spellcheck="false" autocapitalize="characters" autocomplete="off" aria-describedby="enroll-code-hint" class="user-code">
<label for="device-name">Name of this device</label>
<input id="device-name" name="name" required maxlength="64" value="My device">
<button type="submit" id="enroll-submit">Enroll this device</button>
</form>
</section>
<section id="main" hidden>
<h1>Sign-in requests</h1>
<p class="muted" id="device-info"></p>
<p class="muted" role="status" id="status"></p>
<p role="status" id="result" hidden></p>
<div id="not-me" class="not-me" hidden>
<p>Didn't try to sign in? Then someone else knows your password.</p>
<button type="button" class="danger" id="not-me-button">This wasn't me</button>
<div id="not-me-done" hidden>
<p class="notice" role="status">Thanks, it is recorded. Change your password now, so whoever tried cannot try again.</p>
<p><a class="button" id="change-password" href="/account/security#password">Change my password</a></p>
<p class="muted">Can't sign in to change it? <a id="reset-password" href="/account/forgot-password">Reset it by email</a>.</p>
</div>
</div>
<div id="requests"></div>
<p class="muted" id="empty">No sign-in is waiting for your approval.</p>
<details class="alt-method"><summary>This device</summary>
<p class="muted">Remove devices on <a href="/account/security">your account page</a>. Forgetting the key here makes this device unable to approve sign-ins.</p>
<button type="button" class="danger" id="forget">Forget this device</button>
</details>
</section>
</main>
</body>
</html>
`.value;
}
