// @ts-check
/**
 * The web authenticator's service worker (a classic worker script, registered by app.js with
 * scope /authenticator; the server sends Service-Worker-Allowed for that). Rules:
 * - it caches the shell only (page, scripts, manifest, icon, stylesheet), so the authenticator
 *   opens offline; the API is never cached;
 * - network first: a fresh shell replaces the cached copy, the cache answers only when the
 *   network fails;
 * - a new version claims open pages at once and deletes every other cache.
 */
(() => {
  /**
   * The parts of the service-worker global scope used here (lib.dom, which the other browser
   * files are checked against, does not describe worker scopes).
   * @typedef {Event & { waitUntil(promise: Promise<unknown>): void }} WorkerLifecycleEvent
   * @typedef {WorkerLifecycleEvent & { request: Request, respondWith(response: Promise<Response>): void }} WorkerFetchEvent
   * @typedef {object} WorkerScope
   * @property {Location} location
   * @property {{ claim(): Promise<void> }} clients
   * @property {() => Promise<void>} skipWaiting
   * @property {((type: 'install' | 'activate', listener: (event: WorkerLifecycleEvent) => void) => void)
   *   & ((type: 'fetch', listener: (event: WorkerFetchEvent) => void) => void)} addEventListener
   */
  const worker = /** @type {WorkerScope} */ (/** @type {unknown} */ (self));
  const CACHE = 'gatehouse-authenticator-v1';
  const SHELL = [
    '/authenticator',
    '/authenticator/app.js',
    '/authenticator/signed-message.js',
    '/authenticator/manifest.webmanifest',
    '/authenticator/icon.svg',
    '/static/gatehouse.css',
  ];

  worker.addEventListener('install', (e) => {
    e.waitUntil(
      caches
        .open(CACHE)
        .then((c) => c.addAll(SHELL))
        .then(() => worker.skipWaiting()),
    );
  });
  worker.addEventListener('activate', (e) => {
    e.waitUntil(
      caches
        .keys()
        .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
        .then(() => worker.clients.claim()),
    );
  });
  worker.addEventListener('fetch', (e) => {
    const url = new URL(e.request.url);
    if (e.request.method !== 'GET' || url.origin !== worker.location.origin || !SHELL.includes(url.pathname)) return;
    e.respondWith(
      fetch(e.request)
        .then((r) => {
          const copy = r.clone();
          caches.open(CACHE).then((c) => c.put(e.request, copy));
          return r;
        })
        .catch(() => caches.match(e.request).then((cached) => cached ?? Response.error())),
    );
  });
})();
