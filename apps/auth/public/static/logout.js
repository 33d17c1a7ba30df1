// @ts-check
/**
 * The RP-initiated logout page of a request proven by a valid id_token_hint of the session
 * (oidc/logout-source.ts): submits oidc-provider's form at once, so the user is not asked twice
 * (the CSP allows no inline script); without script the button stays. Any other logout request
 * gets the confirmation page, which loads no script.
 */
document.addEventListener('DOMContentLoaded', () => {
  const button = document.getElementById('logout-confirm');
  if (button) button.click();
});
