// @ts-check
/**
 * The RP-initiated logout confirmation page: submits oidc-provider's form at once, so the user is
 * not asked twice (the CSP allows no inline script); without script the button stays.
 */
document.addEventListener('DOMContentLoaded', () => {
  const button = document.getElementById('logout-confirm');
  if (button) button.click();
});
