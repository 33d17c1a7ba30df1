// @ts-check
/**
 * Passkeys (WebAuthn) on the sign-in, second-factor and devices pages, with
 * @simplewebauthn/browser's bundle (global SimpleWebAuthnBrowser, loaded before this script).
 * - `form[data-passkey=authenticate]`: its button fetches request options (POST JSON `{ uid }` to
 *   data-options-url), runs the ceremony, puts the answer in the form's `credential` field and
 *   submits the form (a top-level post, so the server's redirect to the application is followed).
 *   With data-conditional, the ceremony also starts at once in conditional mediation (the
 *   browser offers passkeys in the username field's autofill) where the browser supports it.
 * - `form[data-passkey=register]`: its submit fetches creation options, runs the ceremony and
 *   posts `{ name, credential }` as JSON to data-register-url, then reloads the page.
 * Without WebAuthn the buttons stay hidden and the form says why.
 */
document.addEventListener('DOMContentLoaded', () => {
  /** @type {any} */
  const lib = /** @type {any} */ (window).SimpleWebAuthnBrowser;
  /** @type {NodeListOf<HTMLFormElement>} */
  const forms = document.querySelectorAll('form[data-passkey]');
  for (const form of forms) {
    const status = form.querySelector('[data-passkey-status]');
    /** @param {string} text */
    const say = (text) => {
      if (status) status.textContent = text;
    };
    if (!lib || !lib.browserSupportsWebAuthn()) {
      say('This browser does not support passkeys or security keys.');
      continue;
    }
    for (const hidden of form.querySelectorAll('[data-passkey-start]')) hidden.removeAttribute('hidden');
    if (form.dataset.passkey === 'authenticate') setupAuthenticate(lib, form, say);
    else if (form.dataset.passkey === 'register') setupRegister(lib, form, say);
  }
});

/**
 * The reason a ceremony failed, in words.
 * @param {any} error
 */
function explain(error) {
  const code = error && error.code;
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return 'This authenticator already holds a passkey for your account.';
  if (code === 'ERROR_CEREMONY_ABORTED') return 'The passkey request was cancelled.';
  if (error && error.name === 'NotAllowedError') return 'The passkey request was cancelled, timed out, or refused by your authenticator.';
  if (error && error.name === 'SecurityError') return 'This page may not use passkeys (check the address).';
  return (error && error.message) || 'The passkey request failed.';
}

/**
 * @param {string} url
 * @param {Record<string, string>} body
 */
async function postJson(url, body) {
  const response = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(json.error_description || `The server answered ${response.status}.`);
  return json;
}

/**
 * @param {any} lib
 * @param {HTMLFormElement} form
 * @param {(text: string) => void} say
 */
function setupAuthenticate(lib, form, say) {
  const optionsUrl = form.dataset.optionsUrl || '';
  const uid = /** @type {HTMLInputElement | null} */ (form.elements.namedItem('uid'));
  const field = /** @type {HTMLInputElement | null} */ (form.elements.namedItem('credential'));
  if (!uid || !field) return;
  /** @param {boolean} autofill */
  const run = async (autofill) => {
    const optionsJSON = await postJson(optionsUrl, { uid: uid.value });
    const answer = await lib.startAuthentication({ optionsJSON, useBrowserAutofill: autofill });
    field.value = JSON.stringify(answer);
    say('Signing in…');
    form.submit();
  };
  const button = form.querySelector('[data-passkey-start]');
  if (button) {
    button.addEventListener('click', () => {
      say('Follow the instructions of your browser or security key…');
      run(false).catch((error) => say(explain(error)));
    });
  }
  if (form.dataset.conditional === 'true') {
    lib
      .browserSupportsWebAuthnAutofill()
      .then(/** @param {boolean} yes */ (yes) => (yes ? run(true) : undefined))
      // A conditional request is aborted when the button starts its own: nothing to show.
      .catch(() => undefined);
  }
}

/**
 * @param {any} lib
 * @param {HTMLFormElement} form
 * @param {(text: string) => void} say
 */
function setupRegister(lib, form, say) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = /** @type {HTMLInputElement | null} */ (form.elements.namedItem('name'));
    say('Follow the instructions of your browser or security key…');
    (async () => {
      const optionsJSON = await postJson(form.dataset.optionsUrl || '', {});
      const answer = await lib.startRegistration({ optionsJSON });
      await postJson(form.dataset.registerUrl || '', { name: name ? name.value : '', credential: JSON.stringify(answer) });
      say('Passkey added.');
      window.location.reload();
    })().catch((error) => say(explain(error)));
  });
}
