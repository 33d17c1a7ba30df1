// @ts-check
/**
 * Copy, Download and Print for recovery codes and TOTP keys (views/recovery-codes-block.ts).
 * - button[data-copy="<id>"] copies that element's data-value, or for a list its items one per
 *   line, or else its text; it stays hidden without a clipboard;
 * - button[data-download="<id>"] saves the list's items, one per line, as data-filename (.txt);
 * - button[data-print] prints the page (the print stylesheet keeps the codes);
 * - what happened is said in #copy-status, in the page's language: its data-copied,
 *   data-copy-failed and data-downloaded attributes (English when absent).
 */
document.addEventListener('DOMContentLoaded', () => {
  const status = document.getElementById('copy-status');
  /** @type {Record<string, string>} */
  const ENGLISH = { copied: 'Copied to the clipboard.', copyFailed: 'Could not copy: select the text and copy it by hand.', downloaded: 'Downloaded as a text file.' };
  const say = (/** @type {string} */ what) => {
    if (status) status.textContent = status.dataset[what] || ENGLISH[what] || '';
  };
  const textOf = (/** @type {HTMLElement} */ element) => {
    if (element.dataset.value) return element.dataset.value;
    const items = element.querySelectorAll('li');
    if (items.length) return Array.from(items, (item) => (item.textContent ?? '').trim()).join('\n');
    return (element.textContent ?? '').trim();
  };
  for (const button of document.querySelectorAll('button[data-copy]')) {
    if (!(button instanceof HTMLButtonElement) || !navigator.clipboard) continue;
    const source = document.getElementById(button.dataset.copy ?? '');
    if (!source) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      navigator.clipboard.writeText(textOf(source)).then(
        () => say('copied'),
        () => say('copyFailed'),
      );
    });
  }
  for (const button of document.querySelectorAll('button[data-download]')) {
    if (!(button instanceof HTMLButtonElement)) continue;
    const source = document.getElementById(button.dataset.download ?? '');
    if (!source) continue;
    button.hidden = false;
    button.addEventListener('click', () => {
      const lines = ['Gatehouse recovery codes', `Saved ${new Date().toISOString().slice(0, 10)}. Each code signs you in once.`, '', textOf(source), ''];
      const url = URL.createObjectURL(new Blob([lines.join('\n')], { type: 'text/plain' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = button.dataset.filename ?? 'recovery-codes.txt';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      say('downloaded');
    });
  }
  for (const button of document.querySelectorAll('button[data-print]')) {
    if (!(button instanceof HTMLButtonElement)) continue;
    button.hidden = false;
    button.addEventListener('click', () => window.print());
  }
});
