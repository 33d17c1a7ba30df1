// @ts-check
/**
 * The admin console's copy buttons: a button with data-copy="<element id>" copies that element's
 * text to the clipboard and says so in #copy-status, in the page's language (its data-copied and
 * data-copy-failed attributes; English when absent). The buttons stay hidden without this script
 * or without a clipboard (the text can still be selected and copied by hand).
 */
document.addEventListener('DOMContentLoaded', () => {
  if (!navigator.clipboard) return;
  const status = document.getElementById('copy-status');
  /** @type {Record<string, string>} */
  const ENGLISH = { copied: 'Copied to the clipboard.', copyFailed: 'Could not copy: select the text and copy it by hand.' };
  const say = (/** @type {string} */ what) => {
    if (status) status.textContent = status.dataset[what] || ENGLISH[what] || '';
  };
  for (const button of document.querySelectorAll('button[data-copy]')) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const source = document.getElementById(button.dataset.copy ?? '');
    if (!source) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      navigator.clipboard.writeText((source.textContent ?? '').trim()).then(
        () => say('copied'),
        () => say('copyFailed'),
      );
    });
  }
});
