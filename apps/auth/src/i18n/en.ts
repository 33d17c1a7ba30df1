/**
 * The authorization server's pages in English: the reference catalogue. Every other language is a
 * `Translation` of it (de.ts), so the type checker refuses a language that lacks a key.
 * Keys are `<page>.<text>`; `error.<code>` is the text of an error code (AuthErrorCode) in a
 * language other than English, where an error's own, more specific English message is not shown.
 */
import { html } from '@gatehouse/html';
import type { AuthErrorCode } from '../errors/auth-error.ts';

const plural = (n: number, one: string, other: string) => `${n} ${n === 1 ? one : other}`;

const errors = {
  'error.invalid_request': 'The request is not valid.',
  'error.invalid_credentials': 'Invalid username or password.',
  'error.account_disabled': 'This account is disabled. Contact your administrator.',
  'error.temporarily_unavailable': 'The service is not available right now. Try again in a moment.',
  'error.invalid_code': 'This code is not correct.',
  'error.code_replayed': 'This code was already used. Wait for the next one.',
  'error.too_many_attempts': 'Too many attempts. Try again later.',
  'error.interaction_expired': 'This sign-in page has expired, or it was opened in a browser that did not start it. Nothing was signed in: start the sign-in again.',
  'error.password_required': 'Enter your username and password first.',
  'error.unsupported_media_type': 'The request was sent in a format this page does not accept.',
  'error.payload_too_large': 'The request is too large.',
  'error.not_found': 'There is nothing at this address.',
  'error.method_not_allowed': 'This page cannot be used this way.',
  'error.server_error': 'Something went wrong on our side. Try again later.',
  'error.push_unavailable': 'No authenticator device is enrolled for this account. Use a code instead.',
  'error.too_many_pushes': 'Too many push requests. Wait a few minutes, or use a code instead.',
  'error.push_rejected': 'The sign-in was denied on your authenticator. Send a new push or use a code instead.',
  'error.push_number_mismatch': 'The number picked on your authenticator was not the one shown here, so the sign-in was refused. Send a new push and pick the number this page shows, or use a code instead.',
  'error.push_not_refused': 'Only a sign-in this device denied can be reported.',
  'error.push_timeout': 'The push request expired before it was approved. Send a new push or use a code instead.',
  'error.push_expired': 'This sign-in request has expired.',
  'error.push_already_decided': 'This sign-in request was already answered.',
  'error.number_mismatch': 'You picked a number the sign-in page did not show, so the sign-in was refused. If you are signing in, send a new push and pick the number shown there.',
  'error.invalid_signature': 'The request is not signed by an enrolled device.',
  'error.request_replayed': 'This signed request was already used.',
  'error.device_not_allowed': 'This device is not enrolled for the account of this sign-in.',
  'error.invalid_enrollment_code': 'This enrollment code is unknown, used or expired. Create a new one on the devices page.',
  'error.login_required': 'You are not signed in to Gatehouse. Open your account page to sign in.',
  'error.forbidden': 'Cross-site requests to this page are refused.',
  'error.passkey_challenge_invalid': 'This passkey request has expired. Try again.',
  'error.passkey_unknown': 'This passkey is not registered here. Use another method.',
  'error.passkey_invalid': 'The passkey could not be verified. Try again or use another method.',
  'error.passkey_user_not_verified': 'The passkey did not verify you (PIN or biometrics). Try again.',
  'error.passkey_cloned': 'This passkey looks copied, so it was refused. Use another method and tell your administrator.',
  'error.passkey_already_registered': 'This passkey is already registered.',
  'error.invalid_current_password': 'Your current password is not correct.',
  'error.password_mismatch': 'The two new passwords do not match.',
  'error.password_empty': 'Enter a new password.',
  'error.password_too_short': 'The new password is too short.',
  'error.password_too_long': 'The new password is too long.',
  'error.password_common': 'This password is on the list of common or breached passwords. Choose another.',
  'error.invalid_enrollment': 'This set-up has expired. Start again with your current authenticator app.',
  'error.reset_link_invalid': 'This password-reset link is not valid: it has expired, was already used, or was replaced by a newer one.',
  'error.identifier_required': 'Enter your username or email address.',
  'error.code_required': 'Enter the code of your authenticator app or a recovery code.',
  'error.password_recovery_unavailable': 'Password recovery is not available on this server.',
  'error.unknown_provider': 'This sign-in provider does not exist or is turned off. Sign in another way.',
  'error.upstream_unavailable': 'The sign-in provider could not be reached. Try again in a moment or sign in another way.',
  'error.upstream_refused': 'The sign-in with the provider was cancelled or refused.',
  'error.upstream_error': 'The sign-in provider reported an error.',
  'error.state_mismatch': 'This answer from the sign-in provider does not belong to a sign-in started in this browser.',
  'error.invalid_upstream_response': "The provider's answer failed Gatehouse's security checks.",
  'error.unverified_email': 'The provider has not verified your email address.',
  'error.attempt_expired': 'The sign-in with the provider took too long. Start again.',
  'error.not_invited': 'There is no account for you yet. Ask your administrator for an invitation.',
  'error.already_linked': 'This provider account is already linked to another account.',
  'error.last_sign_in_method': 'This provider is the only way to sign in to your account, so it stays linked.',
} satisfies Record<`error.${AuthErrorCode}`, string>;

export const en = {
  'layout.brand': 'Gatehouse',
  'layout.language': 'Language',
  'layout.titleSuffix': 'Gatehouse',

  'wait.seconds': (v: { n: number }) => plural(v.n, 'second', 'seconds'),
  'wait.minutes': (v: { n: number }) => plural(v.n, 'minute', 'minutes'),
  'error.tooManyAttemptsWait': (v: { wait: string }) => `Too many attempts. Try again in ${v.wait}.`,

  'errorPage.unavailable': 'Temporarily unavailable',
  'errorPage.serverError': 'Something went wrong',
  'errorPage.notFound': 'Page not found',
  'errorPage.expired': 'This sign-in has expired',
  'errorPage.tooMany': 'Too many attempts',
  'errorPage.refused': 'Request refused',
  'errorPage.goToAccount': 'Go to your account',
  'message.errorCode': 'Error code:',
  'message.request': (v: { id: string }) => ` · request ${v.id}`,

  'way.startAgain': 'Start again',
  'way.backTo': (v: { app: string }) => `Back to ${v.app}`,
  'way.account': 'Go to your account',

  'browserError.title': 'Sign-in error',
  'browserError.couldNotComplete': 'The request could not be completed.',
  'browserError.unknownApp': 'Unknown application',
  'browserError.unknownAppText': 'The application that sent you here is not registered with this sign-in service, so you cannot sign in to it from here. Go back to the application and try again, or tell its administrator.',
  'browserError.badLink': 'This sign-in link is not valid',
  'browserError.badLinkText': 'The application asked to send you back to an address it has not registered, so the sign-in stopped here. Go back to the application and try again, or tell its administrator.',
  'browserError.expired': 'This sign-in has expired',
  'browserError.expiredText': 'This sign-in took too long or was finished in another tab. Nothing was signed in: go back to the application and sign in again.',

  'client.continueTo': (v: { name: string }) => html`to continue to <strong>${v.name}</strong>`,
  'client.logoAlt': (v: { name: string }) => `${v.name} logo`,

  'login.title': 'Sign in',
  'login.linking': (v: { provider: string }) => `Sign in to your Gatehouse account to link it with ${v.provider}.`,
  'login.username': 'Username',
  'login.password': 'Password',
  'login.homeRealmHint': 'Company account? Enter your work email address and choose Continue.',
  'login.continue': 'Continue',
  'login.forgotPassword': 'Forgot password?',
  'login.passkey': 'Sign in with a passkey',
  ...errors,
};

/** The keys and message shapes every language of the authorization server's pages has. */
export type AuthCatalogue = typeof en;
