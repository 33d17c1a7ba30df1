/**
 * Static files of the web authenticator (same origin; the CSP allows nothing else). app.js builds
 * every dynamic element with textContent, so nothing a server or client sends is parsed as HTML.
 * The private key is generated non-extractable and kept as a CryptoKey in IndexedDB: this page's
 * script can use it to sign, but nobody can read it out.
 */
import { SIGNATURE_CONTEXT } from '../devices/signed-request.ts';

export const AUTHENTICATOR_SCRIPT = `(function () {
'use strict';
var CTX = ${JSON.stringify(SIGNATURE_CONTEXT)};
var DB_NAME = 'gatehouse-authenticator';
var STORE = 'keys';
var KEY = 'device';
var current = null;
var source = null;
var pollTimer = null;
var retryTimer = null;
var sseFailures = 0;
var polls = 0;

function $(id) { return document.getElementById(id); }
function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function show(id) { ['loading', 'enroll', 'main'].forEach(function (s) { $(s).hidden = s !== id; }); }
function error(msg) { var e = $('error'); e.textContent = msg || ''; e.hidden = !msg; }
function status(msg) { $('status').textContent = msg || ''; }
function result(msg) { var e = $('result'); e.textContent = msg || ''; e.hidden = !msg; }

function openDb() {
  return new Promise(function (resolve, reject) {
    var r = indexedDB.open(DB_NAME, 1);
    r.onupgradeneeded = function () { r.result.createObjectStore(STORE); };
    r.onsuccess = function () { resolve(r.result); };
    r.onerror = function () { reject(r.error); };
  });
}
function idb(mode, fn) {
  return openDb().then(function (db) {
    return new Promise(function (resolve, reject) {
      var tx = db.transaction(STORE, mode);
      var req = fn(tx.objectStore(STORE));
      tx.oncomplete = function () { db.close(); resolve(req.result); };
      tx.onerror = function () { db.close(); reject(tx.error); };
    });
  });
}
function loadDevice() { return idb('readonly', function (s) { return s.get(KEY); }); }
function saveDevice(d) { return idb('readwrite', function (s) { return s.put(d, KEY); }); }
function forgetDevice() { return idb('readwrite', function (s) { return s.delete(KEY); }); }

function b64url(buf) {
  var bytes = new Uint8Array(buf); var s = '';
  for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return btoa(s).replace(/[+]/g, '-').replace(/[/]/g, '_').replace(/=+$/, '');
}
function sign(key, message) {
  return crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key, new TextEncoder().encode(message)).then(b64url);
}
function signedQuery(device) {
  var ts = String(Date.now());
  var nonce = b64url(crypto.getRandomValues(new Uint8Array(18)));
  return sign(device.privateKey, CTX + '.list.' + device.deviceId + '.' + ts + '.' + nonce).then(function (sig) {
    return 'device_id=' + encodeURIComponent(device.deviceId) + '&ts=' + ts + '&nonce=' + nonce + '&sig=' + sig;
  });
}
function postJson(url, body) {
  return fetch(url, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) })
    .then(function (r) { return r.json().catch(function () { return {}; }).then(function (b) { return { status: r.status, body: b }; }); });
}

function enroll(code, name) {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']).then(function (pair) {
    return crypto.subtle.exportKey('jwk', pair.publicKey).then(function (jwk) {
      return sign(pair.privateKey, CTX + '.enroll.' + code).then(function (signature) {
        return postJson('/authenticator/api/register', { code: code, name: name, public_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, signature: signature });
      });
    }).then(function (res) {
      if (res.status !== 201) throw new Error(res.body.error_description || 'The enrollment was refused.');
      var device = { deviceId: res.body.device_id, name: res.body.name, username: res.body.username, privateKey: pair.privateKey };
      return saveDevice(device).then(function () { return device; });
    });
  });
}

function stopAll() {
  if (source) { source.close(); source = null; }
  clearTimeout(pollTimer); clearTimeout(retryTimer);
}
function start(device) {
  current = device;
  show('main');
  $('device-info').textContent = 'This device: ' + device.name + ' · account ' + device.username;
  connect();
}
function connect() {
  stopAll();
  if (!window.EventSource || sseFailures >= 3) { poll(); return; }
  signedQuery(current).then(function (q) {
    source = new EventSource('/authenticator/api/events?' + q);
    source.addEventListener('requests', function (e) { sseFailures = 0; status('Connected: requests appear here as they arrive.'); render(JSON.parse(e.data)); });
    source.addEventListener('revoked', function () { stopAll(); revoked(); });
    source.onerror = function () {
      // The signed URL is single-use: reconnect with a fresh signature instead of the browser's retry.
      if (source) source.close();
      source = null; sseFailures++;
      status('Reconnecting…');
      retryTimer = setTimeout(connect, 2000);
    };
  });
}
function poll() {
  signedQuery(current)
    .then(function (q) { return fetch('/authenticator/api/requests?' + q, { headers: { accept: 'application/json' }, cache: 'no-store' }); })
    .then(function (r) { return r.json().then(function (b) { return { status: r.status, body: b }; }); })
    .then(function (res) {
      if (res.status === 401) { status(''); error(res.body.error_description || 'This device is not accepted any more.'); return; }
      if (res.status !== 200) throw new Error('unexpected status');
      status('Checking for requests every few seconds.');
      render(res.body);
      polls++;
      if (polls % 10 === 0) { sseFailures = 0; connect(); } else { pollTimer = setTimeout(poll, 3000); }
    })
    .catch(function () { status('Offline, retrying…'); pollTimer = setTimeout(poll, 5000); });
}
function revoked() {
  status('');
  error('This device was removed from your account. Forget it here and enroll it again to use it.');
}

function render(data) {
  var list = $('requests');
  while (list.firstChild) list.removeChild(list.firstChild);
  $('empty').hidden = data.requests.length > 0;
  data.requests.forEach(function (r) { list.appendChild(card(r)); });
}
function card(r) {
  var div = el('div', 'request');
  div.setAttribute('data-request-id', r.id);
  div.appendChild(el('h2', null, 'Sign in to ' + r.client_name + '?'));
  var dl = el('dl');
  [['Browser IP', r.ip], ['Browser', r.user_agent || 'unknown'], ['Requested', new Date(r.created_at).toLocaleString()], ['Expires', new Date(r.expires_at).toLocaleTimeString()]]
    .forEach(function (p) { dl.appendChild(el('dt', null, p[0])); dl.appendChild(el('dd', null, p[1])); });
  div.appendChild(dl);
  div.appendChild(el('p', null, 'To approve, pick the number shown on the sign-in page:'));
  var choices = el('div', 'choices');
  r.choices.forEach(function (n) {
    var b = el('button', 'choice', String(n));
    b.type = 'button';
    b.setAttribute('data-number', String(n));
    b.addEventListener('click', function () { answer(r, 'approve', String(n), div); });
    choices.appendChild(b);
  });
  div.appendChild(choices);
  var deny = el('button', 'danger', 'Deny: this was not me');
  deny.type = 'button';
  deny.setAttribute('data-deny', '');
  deny.addEventListener('click', function () { answer(r, 'deny', '', div); });
  div.appendChild(deny);
  return div;
}
function answer(r, decision, number, div) {
  Array.prototype.forEach.call(div.querySelectorAll('button'), function (b) { b.disabled = true; });
  var message = CTX + '.answer.' + r.id + '.' + decision + '.' + number + '.' + current.deviceId;
  sign(current.privateKey, message)
    .then(function (signature) {
      return postJson('/authenticator/api/requests/' + encodeURIComponent(r.id) + '/answer', { device_id: current.deviceId, decision: decision, number: number, signature: signature });
    })
    .then(function (res) {
      if (res.status === 200) {
        error('');
        result(res.body.state === 'APPROVED' ? 'Approved: the sign-in continues in the other browser.' : 'Denied: that sign-in was refused.');
      } else {
        result('');
        error(res.body.error_description || 'The answer was refused.');
      }
      if (div.parentNode) div.parentNode.removeChild(div);
      $('empty').hidden = $('requests').children.length > 0;
    })
    .catch(function () { error('Could not send the answer. Check the connection and try again.'); Array.prototype.forEach.call(div.querySelectorAll('button'), function (b) { b.disabled = false; }); });
}

document.addEventListener('DOMContentLoaded', function () {
  if (!window.crypto || !crypto.subtle || !window.indexedDB) {
    show('enroll');
    error('This browser cannot keep a device key here: the authenticator needs https, WebCrypto and IndexedDB.');
    return;
  }
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/authenticator/sw.js', { scope: '/authenticator' }).catch(function () {});
  var m = /^#enroll=([A-Za-z0-9_-]+)$/.exec(location.hash);
  if (m) { $('enroll-code').value = m[1]; history.replaceState(null, '', location.pathname); }
  $('enroll-form').addEventListener('submit', function (e) {
    e.preventDefault();
    error('');
    var button = $('enroll-submit');
    button.disabled = true;
    enroll($('enroll-code').value.trim(), $('device-name').value.trim())
      .then(start)
      .catch(function (err) { error(err && err.message ? err.message : 'The enrollment failed.'); })
      .then(function () { button.disabled = false; });
  });
  $('forget').addEventListener('click', function () {
    stopAll();
    forgetDevice().then(function () { current = null; error(''); show('enroll'); });
  });
  loadDevice()
    .then(function (d) { if (d && d.privateKey && d.deviceId) start(d); else show('enroll'); })
    .catch(function () { show('enroll'); error('Could not open this device\\u2019s key store.'); });
});
})();
`;

export const SERVICE_WORKER = `'use strict';
var CACHE = 'gatehouse-authenticator-v1';
var SHELL = ['/authenticator', '/authenticator/app.js', '/authenticator/manifest.webmanifest', '/authenticator/icon.svg', '/static/gatehouse.css'];
self.addEventListener('install', function (e) {
  e.waitUntil(caches.open(CACHE).then(function (c) { return c.addAll(SHELL); }).then(function () { return self.skipWaiting(); }));
});
self.addEventListener('activate', function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});
// Network first for the shell only (so it opens offline); the API is never cached.
self.addEventListener('fetch', function (e) {
  var url = new URL(e.request.url);
  if (e.request.method !== 'GET' || url.origin !== self.location.origin || SHELL.indexOf(url.pathname) < 0) return;
  e.respondWith(fetch(e.request).then(function (r) {
    var copy = r.clone();
    caches.open(CACHE).then(function (c) { return c.put(e.request, copy); });
    return r;
  }).catch(function () { return caches.match(e.request); }));
});
`;

export const MANIFEST = JSON.stringify({
  name: 'Gatehouse Authenticator',
  short_name: 'Gatehouse',
  description: 'Approve Gatehouse sign-ins on this device.',
  start_url: '/authenticator',
  scope: '/authenticator',
  display: 'standalone',
  background_color: '#f3f4f6',
  theme_color: '#4f46e5',
  icons: [{ src: '/authenticator/icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
});

export const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="96" fill="#4f46e5"/><path d="M256 96l128 48v96c0 84-56 148-128 176-72-28-128-92-128-176v-96z" fill="#fff"/><path d="M208 256l36 36 68-76" stroke="#4f46e5" stroke-width="28" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;
