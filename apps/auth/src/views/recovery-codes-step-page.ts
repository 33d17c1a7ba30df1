import { html } from '@gatehouse/html';
import { layout } from './layout.ts';
import { COPY_CODES_SCRIPT, recoveryCodesBlock } from './recovery-codes-block.ts';

export interface RecoveryCodesStepModel {
  uid: string;
  codes: readonly string[];
  /** Where "I have saved them" posts (interactions/mfa/recovery-codes-saved.ts). */
  action: string;
}

/**
 * The sign-in's recovery codes, after the authenticator app proved to work: Copy, Download,
 * Print, and "I have saved them" to go on to the app. Shown again on the next sign-in until then.
 */
export function recoveryCodesStepPage(model: RecoveryCodesStepModel): string {
  return layout({
    title: 'Save your recovery codes',
    scripts: [COPY_CODES_SCRIPT],
    body: html`<h1>Save your recovery codes</h1>
<p class="notice">Your authenticator app is set up.</p>
<p>If you lose your phone, each of these codes signs you in once instead of a code from the app. Store them somewhere safe, such as a password manager, or print them.</p>
<section class="recovery-codes" aria-labelledby="recovery-title">
<h2 id="recovery-title">Your ${model.codes.length} recovery codes</h2>
${recoveryCodesBlock(model.codes)}
</section>
<form method="post" action="${model.action}">
<input type="hidden" name="uid" value="${model.uid}">
<button type="submit" id="codes-saved">I have saved them — continue</button>
</form>
<p class="muted">Until you confirm, these same codes are shown again the next time you sign in.</p>`,
  });
}
