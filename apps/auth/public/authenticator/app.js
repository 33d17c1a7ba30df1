// @ts-check
/**
 * The web authenticator (a module script of /authenticator; same origin, the CSP allows nothing
 * else). Rules:
 * - every dynamic element is built with textContent, so nothing a server or client sends is
 *   parsed as HTML;
 * - the private key is generated non-extractable and kept as a CryptoKey in IndexedDB: this
 *   page's script can use it to sign, but nobody can read it out;
 * - every signed message comes from signed-message.js, the module the server verifies with;
 * - requests arrive over Server-Sent Events; after 3 failed connections (or without EventSource)
 *   the page polls instead, and tries the stream again every 10 polls. A listing URL is signed
 *   for one use, so every reconnection signs afresh instead of relying on the browser's retry;
 * - a request shows the sign-in's browser and system as the server labelled them ("Chrome on
 *   Linux"), never the raw user agent, and counts down the seconds the server said were left
 *   (this device's clock may be wrong); at zero its buttons are disabled;
 * - a wrong number and a denial each say what happened; after either, "This wasn't me" reports
 *   the sign-in (signed) and leads to a password change;
 * - every text it shows is the page's (views/authenticator-page.ts): the JSON in `<main>`'s
 *   `data-text`, `{name}` placeholders filled in here; a refusal of the API is said by the text of
 *   its error code where the page gives one (`errors`, pages in other languages than English),
 *   else by the server's own description.
 */
import { answerMessage, enrollMessage, listMessage, reportMessage } from './signed-message.js';

/**
 * @typedef {object} Device  What IndexedDB keeps for this device.
 * @property {string} deviceId
 * @property {string} name
 * @property {string} username
 * @property {CryptoKey} privateKey
 *
 * @typedef {object} PushRequest  One sign-in waiting for this device (GET /authenticator/api/requests).
 * @property {string} id
 * @property {string} client_name
 * @property {string} ip
 * @property {string | null} [user_agent]
 * @property {string} [browser]
 * @property {string} created_at
 * @property {string} expires_at
 * @property {number} expires_in
 * @property {number[]} choices
 *
 * @typedef {{ requests: PushRequest[] }} RequestList
 * @typedef {'approve' | 'deny'} Decision
 * @typedef {{ status: number, body: Record<string, any> }} JsonResponse
 */

const DB_NAME = 'gatehouse-authenticator';
const STORE = 'keys';
const KEY = 'device';
/** @type {Device | null} */
let current = null;
/** @type {EventSource | null} */
let source = null;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let pollTimer;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let retryTimer;
let sseFailures = 0;
let polls = 0;
/** When each shown request expires, in this page's monotonic time (ms), by request id. */
const deadlines = new Map();
/** @type {ReturnType<typeof setInterval> | undefined} */
let countdownTimer;

/** @type {Record<string, string> & { errors: Record<string, string> }} */
const TEXT = JSON.parse(document.getElementById('authenticator')?.getAttribute('data-text') || '{"errors":{}}');
/**
 * The page's text `key`, its `{name}` placeholders replaced by `values`.
 * @param {string} key
 * @param {Record<string, string>} [values]
 */
function say(key, values = {}) {
  return (TEXT[key] || '').replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
}
/**
 * What to say about a refusal of the API: its code's text on the page, else its description, else `fallback`.
 * @param {Record<string, any>} body
 * @param {string} fallback  a key of the page's text
 */
function refusal(body, fallback) {
  return (typeof body.error === 'string' && TEXT.errors[body.error]) || body.error_description || say(fallback);
}

/** @param {string} id */
function $(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing element #${id}`);
  return element;
}
/** @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ ($(id));
/**
 * @param {string} tag
 * @param {string | null} [cls]
 * @param {string} [text]
 */
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
/** @param {'loading' | 'enroll' | 'main'} id */
function show(id) {
  for (const section of ['loading', 'enroll', 'main']) $(section).hidden = section !== id;
}
/** @param {string} [msg] */
function error(msg) {
  const e = $('error');
  e.textContent = msg || '';
  e.hidden = !msg;
}
/** @param {string} [msg] */
function status(msg) {
  $('status').textContent = msg || '';
}
/** @param {string} [msg] */
function result(msg) {
  const e = $('result');
  e.textContent = msg || '';
  e.hidden = !msg;
}

/** @returns {Promise<IDBDatabase>} */
function openDb() {
  return new Promise((resolve, reject) => {
    const r = indexedDB.open(DB_NAME, 1);
    r.onupgradeneeded = () => {
      r.result.createObjectStore(STORE);
    };
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}
/**
 * @template T
 * @param {IDBTransactionMode} mode
 * @param {(store: IDBObjectStore) => IDBRequest<T>} fn
 * @returns {Promise<T>}
 */
function idb(mode, fn) {
  return openDb().then(
    (db) =>
      new Promise((resolve, reject) => {
        const tx = db.transaction(STORE, mode);
        const req = fn(tx.objectStore(STORE));
        tx.oncomplete = () => {
          db.close();
          resolve(req.result);
        };
        tx.onerror = () => {
          db.close();
          reject(tx.error);
        };
      }),
  );
}
/** @returns {Promise<Partial<Device> | undefined>} */
const loadDevice = () => idb('readonly', (s) => s.get(KEY));
/** @param {Device} d */
const saveDevice = (d) => idb('readwrite', (s) => s.put(d, KEY));
const forgetDevice = () => idb('readwrite', (s) => s.delete(KEY));

/** @param {ArrayBuffer | Uint8Array} buf */
function b64url(buf) {
  const bytes = new Uint8Array(buf);
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(/** @type {number} */ (bytes[i]));
  return btoa(s).replace(/[+]/g, '-').replace(/[/]/g, '_').replace(/=+$/, '');
}
/**
 * @param {CryptoKey} key
 * @param {string} message
 */
function sign(key, message) {
  return crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, new TextEncoder().encode(message)).then(b64url);
}
/** The query of a listing request, signed for one use. @param {Device} device */
function signedQuery(device) {
  const ts = String(Date.now());
  const nonce = b64url(crypto.getRandomValues(new Uint8Array(18)));
  return sign(device.privateKey, listMessage(device.deviceId, ts, nonce)).then(
    (sig) => `device_id=${encodeURIComponent(device.deviceId)}&ts=${ts}&nonce=${nonce}&sig=${sig}`,
  );
}
/**
 * @param {string} url
 * @param {unknown} body
 * @returns {Promise<JsonResponse>}
 */
function postJson(url, body) {
  return fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  }).then((r) =>
    r
      .json()
      .catch(() => ({}))
      .then((b) => ({ status: r.status, body: b })),
  );
}

/**
 * @param {string} code
 * @param {string} name
 * @returns {Promise<Device>}
 */
function enroll(code, name) {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']).then((pair) =>
    crypto.subtle
      .exportKey('jwk', pair.publicKey)
      .then((jwk) =>
        sign(pair.privateKey, enrollMessage(code)).then((signature) =>
          postJson('/authenticator/api/register', { code, name, public_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, signature }),
        ),
      )
      .then((res) => {
        if (res.status !== 201) throw new Error(refusal(res.body, 'enrollRefused'));
        /** @type {Device} */
        const device = { deviceId: res.body.device_id, name: res.body.name, username: res.body.username, privateKey: pair.privateKey };
        return saveDevice(device).then(() => device);
      }),
  );
}

function stopAll() {
  if (source) {
    source.close();
    source = null;
  }
  clearTimeout(pollTimer);
  clearTimeout(retryTimer);
}
/** @param {Device} device */
function start(device) {
  current = device;
  show('main');
  $('device-info').textContent = say('deviceInfo', { name: device.name, username: device.username });
  connect();
}
function connect() {
  stopAll();
  if (!current) return;
  if (!window.EventSource || sseFailures >= 3) {
    poll();
    return;
  }
  signedQuery(current).then((q) => {
    const stream = new EventSource(`/authenticator/api/events?${q}`);
    source = stream;
    stream.addEventListener('requests', (e) => {
      sseFailures = 0;
      status(say('connected'));
      render(JSON.parse(e.data));
    });
    stream.addEventListener('revoked', () => {
      stopAll();
      revoked();
    });
    stream.onerror = () => {
      // The signed URL is single-use: reconnect with a fresh signature instead of the browser's retry.
      stream.close();
      if (source === stream) source = null;
      sseFailures++;
      status(say('reconnecting'));
      retryTimer = setTimeout(connect, 2000);
    };
  });
}
function poll() {
  if (!current) return;
  signedQuery(current)
    .then((q) => fetch(`/authenticator/api/requests?${q}`, { headers: { accept: 'application/json' }, cache: 'no-store' }))
    .then((r) => r.json().then((b) => ({ status: r.status, body: b })))
    .then((res) => {
      if (res.status === 401) {
        status('');
        error(refusal(res.body, 'notAccepted'));
        return;
      }
      if (res.status !== 200) throw new Error('unexpected status');
      status(say('polling'));
      render(res.body);
      polls++;
      if (polls % 10 === 0) {
        sseFailures = 0;
        connect();
      } else {
        pollTimer = setTimeout(poll, 3000);
      }
    })
    .catch(() => {
      status(say('offline'));
      pollTimer = setTimeout(poll, 5000);
    });
}
function revoked() {
  status('');
  error(say('revoked'));
}

/** @param {RequestList} data */
function render(data) {
  const list = $('requests');
  // A card already shown stays as it is, so a refreshed list never takes the focus from a button
  // or drops a press on its way; only requests that ended leave, and new ones are added.
  const listed = new Set(data.requests.map((r) => r.id));
  for (const div of Array.from(list.children)) if (!listed.has(div.getAttribute('data-request-id') ?? '')) list.removeChild(div);
  const shown = new Set(Array.from(list.children).map((div) => div.getAttribute('data-request-id')));
  $('empty').hidden = data.requests.length > 0;
  const now = performance.now();
  for (const r of data.requests) {
    if (!deadlines.has(r.id)) deadlines.set(r.id, now + r.expires_in * 1000);
    if (!shown.has(r.id)) list.appendChild(card(r));
  }
  for (const id of [...deadlines.keys()]) if (!data.requests.some((r) => r.id === id)) deadlines.delete(id);
  tickCountdowns();
  clearInterval(countdownTimer);
  if (data.requests.length > 0) countdownTimer = setInterval(tickCountdowns, 1000);
}
/** @param {number} seconds */
const minutesSeconds = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
function tickCountdowns() {
  const now = performance.now();
  for (const div of document.querySelectorAll('[data-request-id]')) {
    const deadline = deadlines.get(div.getAttribute('data-request-id'));
    const shown = div.querySelector('.countdown');
    if (deadline === undefined || !shown) continue;
    const left = Math.max(0, Math.ceil((deadline - now) / 1000));
    shown.textContent = left > 0 ? say('expiresIn', { time: minutesSeconds(left) }) : say('expired');
    if (left === 0) setButtonsDisabled(/** @type {HTMLElement} */ (div), true);
  }
}
/** @param {PushRequest} r */
function card(r) {
  const div = el('div', 'request');
  div.setAttribute('data-request-id', r.id);
  div.appendChild(el('h2', null, say('signInTo', { client: r.client_name })));
  const dl = el('dl');
  /** @type {[string, string, string][]} */
  const facts = [
    [say('browser'), r.browser || say('unknownBrowser'), 'browser'],
    [say('ip'), r.ip, 'ip'],
  ];
  for (const [term, value, name] of facts) {
    dl.appendChild(el('dt', null, term));
    const dd = el('dd', null, value);
    dd.setAttribute('data-fact', name);
    dl.appendChild(dd);
  }
  div.appendChild(dl);
  div.appendChild(el('p', 'muted countdown', say('expiresIn', { time: minutesSeconds(Math.max(0, r.expires_in)) })));
  div.appendChild(el('p', null, say('pickNumber')));
  const choices = el('div', 'choices');
  for (const n of r.choices) {
    const b = /** @type {HTMLButtonElement} */ (el('button', 'choice', String(n)));
    b.type = 'button';
    b.setAttribute('data-number', String(n));
    b.addEventListener('click', () => answer(r, 'approve', String(n), div));
    choices.appendChild(b);
  }
  div.appendChild(choices);
  const deny = /** @type {HTMLButtonElement} */ (el('button', 'danger', say('deny')));
  deny.type = 'button';
  deny.setAttribute('data-deny', '');
  deny.addEventListener('click', () => answer(r, 'deny', '', div));
  div.appendChild(deny);
  return div;
}
/**
 * @param {HTMLElement} div
 * @param {boolean} disabled
 */
function setButtonsDisabled(div, disabled) {
  for (const b of div.querySelectorAll('button')) b.disabled = disabled;
}
/**
 * @param {PushRequest} r
 * @param {Decision} decision
 * @param {string} number  the chosen number, '' on deny
 * @param {HTMLElement} div
 */
function answer(r, decision, number, div) {
  const device = current;
  if (!device) return;
  setButtonsDisabled(div, true);
  sign(device.privateKey, answerMessage(r.id, decision, number, device.deviceId))
    .then((signature) =>
      postJson(`/authenticator/api/requests/${encodeURIComponent(r.id)}/answer`, { device_id: device.deviceId, decision, number, signature }),
    )
    .then((res) => {
      if (res.status === 200 && res.body.state === 'APPROVED') {
        error('');
        $('not-me').hidden = true;
        result(say('approved'));
      } else if (res.status === 200) {
        error('');
        result(say('denied'));
        offerNotMe(r);
      } else if (res.body.error === 'number_mismatch') {
        error('');
        result(say('wrongNumber', { reason: refusal(res.body, 'answerRefused') }));
        offerNotMe(r);
      } else {
        result('');
        error(refusal(res.body, 'answerRefused'));
      }
      if (div.parentNode) div.parentNode.removeChild(div);
      deadlines.delete(r.id);
      $('empty').hidden = $('requests').children.length > 0;
    })
    .catch(() => {
      error(say('answerFailed'));
      setButtonsDisabled(div, false);
    });
}

/** After a denial or a wrong number: "This wasn't me" reports the sign-in, then leads to a password change. @param {PushRequest} r */
function offerNotMe(r) {
  const box = $('not-me');
  box.hidden = false;
  $('not-me-done').hidden = true;
  const button = /** @type {HTMLButtonElement} */ ($('not-me-button'));
  button.hidden = false;
  button.disabled = false;
  button.onclick = () => {
    const device = current;
    if (!device) return;
    button.disabled = true;
    sign(device.privateKey, reportMessage(r.id, device.deviceId))
      .then((signature) => postJson(`/authenticator/api/requests/${encodeURIComponent(r.id)}/report`, { device_id: device.deviceId, signature }))
      .then((res) => {
        if (res.status !== 200) throw new Error(refusal(res.body, 'reportRefused'));
        /** @type {HTMLAnchorElement} */ ($('change-password')).href = res.body.password_change_url;
        /** @type {HTMLAnchorElement} */ ($('reset-password')).href = res.body.password_reset_url;
        button.hidden = true;
        $('not-me-done').hidden = false;
        /** @type {HTMLElement} */ ($('change-password')).focus();
      })
      .catch((err) => {
        button.disabled = false;
        error(err && err.message ? err.message : say('reportFailed'));
      });
  };
}

document.addEventListener('DOMContentLoaded', () => {
  if (!window.crypto || !crypto.subtle || !window.indexedDB) {
    show('enroll');
    error(say('unsupported'));
    return;
  }
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/authenticator/sw.js', { scope: '/authenticator' }).catch(() => {});
  const m = /^#enroll=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (m && m[1]) {
    input('enroll-code').value = m[1];
    history.replaceState(null, '', location.pathname);
  }
  $('enroll-form').addEventListener('submit', (e) => {
    e.preventDefault();
    error('');
    const button = /** @type {HTMLButtonElement} */ ($('enroll-submit'));
    button.disabled = true;
    enroll(input('enroll-code').value.trim(), input('device-name').value.trim())
      .then(start)
      .catch((err) => error(err && err.message ? err.message : say('enrollFailed')))
      .then(() => {
        button.disabled = false;
      });
  });
  $('forget').addEventListener('click', () => {
    stopAll();
    forgetDevice().then(() => {
      current = null;
      error('');
      show('enroll');
    });
  });
  loadDevice()
    .then((d) => {
      if (d && d.privateKey && d.deviceId) start(/** @type {Device} */ (d));
      else show('enroll');
    })
    .catch(() => {
      show('enroll');
      error(say('keyStoreFailed'));
    });
});
