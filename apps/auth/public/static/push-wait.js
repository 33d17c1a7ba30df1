// @ts-check
/**
 * The push WAITING page's poller: asks the state every 2 s (same origin, JSON); once the push is
 * no longer PENDING it opens the poll URL, a top-level navigation that completes the login
 * (302 to the client) or shows why it did not. A network error retries after 4 s.
 */
document.addEventListener('DOMContentLoaded', () => {
  const box = document.getElementById('push-wait');
  if (!box) return;
  const statusUrl = box.getAttribute('data-status-url');
  const pollUrl = box.getAttribute('data-poll-url');
  if (!statusUrl || !pollUrl) return;
  const tick = () => {
    fetch(statusUrl, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : { state: 'ERROR' }))
      .then((b) => {
        if (b && b.state === 'PENDING') setTimeout(tick, 2000);
        else window.location.assign(pollUrl);
      })
      .catch(() => setTimeout(tick, 4000));
  };
  setTimeout(tick, 1500);
});
