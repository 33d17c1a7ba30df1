// @ts-check
/**
 * Counts down every element with `data-countdown` (seconds left, written by the server with its
 * lead sentence, views/countdown.ts): each second it shows "<lead> m:ss.", and at zero the
 * `data-countdown-expired` sentence. The seconds are counted from when the page loaded, never from
 * an absolute time, so the device's clock does not matter.
 */
document.addEventListener('DOMContentLoaded', () => {
  const started = Date.now();
  const items = Array.from(document.querySelectorAll('[data-countdown]')).map((element) => ({
    element,
    seconds: Number(element.getAttribute('data-countdown')) || 0,
    lead: element.getAttribute('data-countdown-lead') || '',
    expired: element.getAttribute('data-countdown-expired') || '',
  }));
  if (items.length === 0) return;
  /** @param {number} s */
  const clock = (s) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
  const tick = () => {
    const elapsed = Math.floor((Date.now() - started) / 1000);
    let running = false;
    for (const item of items) {
      const left = item.seconds - elapsed;
      item.element.textContent = left > 0 ? `${item.lead} ${clock(left)}.` : item.expired;
      if (left > 0) running = true;
    }
    if (running) setTimeout(tick, 1000 - ((Date.now() - started) % 1000));
  };
  tick();
});
