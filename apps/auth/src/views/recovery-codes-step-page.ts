import { html } from '@gatehouse/html';
import { ENGLISH, type PageLanguage } from '../i18n/page-language.ts';
import { layout } from './layout.ts';
import { COPY_CODES_SCRIPT, recoveryCodesBlock } from './recovery-codes-block.ts';

export interface RecoveryCodesStepModel {
  uid: string;
  codes: readonly string[];
  /** Where "I have saved them" posts (interactions/mfa/recovery-codes-saved.ts). */
  action: string;
  /** The page's language (i18n/page-language.ts). */
  language?: PageLanguage;
}

/**
 * The sign-in's recovery codes, after the authenticator app proved to work: Copy, Download,
 * Print, and "I have saved them" to go on to the app. Shown again on the next sign-in until then.
 */
export function recoveryCodesStepPage(model: RecoveryCodesStepModel): string {
  const language = model.language ?? ENGLISH;
  const { t } = language;
  return layout({
    title: t('recoveryStep.title'),
    scripts: [COPY_CODES_SCRIPT],
    language,
    languageReturn: `/interaction/${model.uid}`,
    body: html`<h1>${t('recoveryStep.title')}</h1>
<p class="notice">${t('recoveryStep.ready')}</p>
<p>${t('recoveryStep.intro')}</p>
<section class="recovery-codes" aria-labelledby="recovery-title">
<h2 id="recovery-title">${t('recoveryStep.heading', { count: model.codes.length })}</h2>
${recoveryCodesBlock(model.codes, 'recovery-codes', language)}
</section>
<form method="post" action="${model.action}">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" id="codes-saved">${t('recoveryStep.saved')}</button>
</form>
<p class="muted">${t('recoveryStep.again')}</p>`,
  });
}
