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
 *   posts `{ name, credential }` as JSON to data-register-url, then reloads the page. A sign-in
 *   too old for the change (the server's `reauth_required`) shows the form's [data-passkey-reauth]
 *   element, its words and the link that signs in again, and moves the focus to that link.
 * Without WebAuthn the buttons stay hidden and the form says why.
 * What the form says comes from its [data-passkey-status] element's data attributes, in the page's
 * language (views/passkey-status.ts): data-unsupported, data-follow, data-signing-in, data-added,
 * data-already, data-cancelled, data-refused, data-insecure, data-failed, and data-error-<code>
 * for a server's refusal by its error code; English when absent.
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
    /** @param {string} what */
    const words = (what) => (status instanceof HTMLElement && status.dataset[what]) || ENGLISH[what] || '';
    if (!lib || !lib.browserSupportsWebAuthn()) {
      say(words('unsupported'));
      continue;
    }
    for (const hidden of form.querySelectorAll('[data-passkey-start]')) hidden.removeAttribute('hidden');
    if (form.dataset.passkey === 'authenticate') setupAuthenticate(lib, form, say, words);
    else if (form.dataset.passkey === 'register') setupRegister(lib, form, say, words);
  }
});

/** @type {Record<string, string>} */
const ENGLISH = {
  unsupported: 'This browser does not support passkeys or security keys.',
  follow: 'Follow the instructions of your browser or security key…',
  signingIn: 'Signing in…',
  added: 'Passkey added.',
  already: 'This authenticator already holds a passkey for your account.',
  cancelled: 'The passkey request was cancelled.',
  refused: 'The passkey request was cancelled, timed out, or refused by your authenticator.',
  insecure: 'This page may not use passkeys (check the address).',
  failed: 'The passkey request failed.',
};

/** A server's refusal: its error code (for the page's words) and its own description. */
class Refusal extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.refusal = code;
  }
}

/**
 * The reason a ceremony failed, in words.
 * @param {any} error
 * @param {(what: string) => string} words
 */
function explain(error, words) {
  const code = error && error.code;
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return words('already');
  if (code === 'ERROR_CEREMONY_ABORTED') return words('cancelled');
  if (error && error.name === 'NotAllowedError') return words('refused');
  if (error && error.name === 'SecurityError') return words('insecure');
  if (error instanceof Refusal) {
    const key = `error${error.refusal.replace(/(^|_)([a-z])/g, (_, __, letter) => letter.toUpperCase())}`;
    return words(key) || error.message || words('failed');
  }
  return (error && error.message) || words('failed');
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
  if (!response.ok) throw new Refusal(String(json.error || ''), json.error_description || `The server answered ${response.status}.`);
  return json;
}

/**
 * @param {any} lib
 * @param {HTMLFormElement} form
 * @param {(text: string) => void} say
 * @param {(what: string) => string} words
 */
function setupAuthenticate(lib, form, say, words) {
  const optionsUrl = form.dataset.optionsUrl || '';
  const uid = /** @type {HTMLInputElement | null} */ (form.elements.namedItem('uid'));
  const field = /** @type {HTMLInputElement | null} */ (form.elements.namedItem('credential'));
  if (!uid || !field) return;
  /** @param {boolean} autofill */
  const run = async (autofill) => {
    const optionsJSON = await postJson(optionsUrl, { uid: uid.value });
    const answer = await lib.startAuthentication({ optionsJSON, useBrowserAutofill: autofill });
    field.value = JSON.stringify(answer);
    say(words('signingIn'));
    form.submit();
  };
  const button = form.querySelector('[data-passkey-start]');
  if (button) {
    button.addEventListener('click', () => {
      say(words('follow'));
      run(false).catch((error) => say(explain(error, words)));
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
 * @param {(what: string) => string} words
 */
function setupRegister(lib, form, say, words) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = /** @type {HTMLInputElement | null} */ (form.elements.namedItem('name'));
    say(words('follow'));
    (async () => {
      const optionsJSON = await postJson(form.dataset.optionsUrl || '', {});
      const answer = await lib.startRegistration({ optionsJSON });
      await postJson(form.dataset.registerUrl || '', { name: name ? name.value : '', credential: JSON.stringify(answer) });
      say(words('added'));
      window.location.reload();
    })().catch((error) => {
      const reauth = form.querySelector('[data-passkey-reauth]');
      if (error instanceof Refusal && error.refusal === 'reauth_required' && reauth instanceof HTMLElement) {
        say('');
        reauth.hidden = false;
        const link = reauth.querySelector('a');
        if (link) link.focus();
        return;
      }
      say(explain(error, words));
    });
  });
}
