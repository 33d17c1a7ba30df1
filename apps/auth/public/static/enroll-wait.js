// @ts-check
/**
 * The "Add a device" page's watcher: asks the enrollment's state every 2 s (same origin, JSON).
 * Once a device has used the code, or the code expired, it opens the done page (which offers a
 * new code after an expiry), unless the page shows recovery codes to save (`data-auto="false"`):
 * then it never leaves the page, only says that the device is set up, and the user continues
 * with the button. A network error retries
 * after 4 s. Without script the Continue button does the same.
 */
document.addEventListener('DOMContentLoaded', () => {
  const box = document.getElementById('enroll-wait');
  if (!box) return;
  const statusUrl = box.getAttribute('data-status-url');
  const doneUrl = box.getAttribute('data-done-url');
  const status = document.getElementById('enroll-status');
  if (!statusUrl || !doneUrl || !status) return;
  const auto = box.getAttribute('data-auto') !== 'false';
  status.textContent = box.getAttribute('data-waiting-text') || '';
  const tick = () => {
    fetch(statusUrl, { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' })
      .then((r) => (r.ok ? r.json() : { state: 'error' }))
      .then((b) => {
        if (b && b.state === 'pending') setTimeout(tick, 2000);
        else if (auto) window.location.assign(doneUrl);
        else if (b && b.state === 'enrolled') status.textContent = box.getAttribute('data-enrolled-text') || '';
      })
      .catch(() => setTimeout(tick, 4000));
  };
  setTimeout(tick, 2000);
});
