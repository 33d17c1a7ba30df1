// @ts-check
/**
 * The admin console's copy buttons: a button with data-copy="<element id>" copies that element's
 * text to the clipboard and says so in #copy-status. The buttons stay hidden without this script
 * or without a clipboard (the text can still be selected and copied by hand).
 */
document.addEventListener('DOMContentLoaded', () => {
  if (!navigator.clipboard) return;
  const status = document.getElementById('copy-status');
  const say = (/** @type {string} */ text) => {
    if (status) status.textContent = text;
  };
  for (const button of document.querySelectorAll('button[data-copy]')) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const source = document.getElementById(button.dataset.copy ?? '');
    if (!source) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      navigator.clipboard.writeText((source.textContent ?? '').trim()).then(
        () => say('Copied to the clipboard.'),
        () => say('Could not copy: select the text and copy it by hand.'),
      );
    });
  }
});
