/**
 * The relying party's pages in English: the reference catalogue. Every other language is a
 * `Translation` of it (de.ts), so the type checker refuses a language that lacks a key.
 * `error.<code>.title` and `error.<code>.text` say an error code (ClientErrorCode) in a language
 * other than English, where the error's own, more specific English message is not shown.
 */
import type { ClientErrorCode } from '../errors/client-error.ts';

const errors = {
  'error.login_failed.title': 'Sign-in was not completed',
  'error.login_failed.text': 'The sign-in service did not complete the sign-in. Start again from the application.',
  'error.invalid_state.title': 'Sign-in could not be completed',
  'error.invalid_state.text': 'This sign-in answer does not match a sign-in started here, or it has expired. Start again from the application.',
  'error.token_exchange_failed.title': 'Sign-in could not be completed',
  'error.token_exchange_failed.text': 'The sign-in service refused to complete this sign-in. Start again from the application.',
  'error.invalid_id_token.title': 'Sign-in could not be completed',
  'error.invalid_id_token.text': 'The identity token from the sign-in service failed validation.',
  'error.authorization_server_unavailable.title': 'Sign-in service unavailable',
  'error.authorization_server_unavailable.text': 'The sign-in service could not be reached. Try again in a moment.',
  'error.database_unavailable.title': 'Temporarily unavailable',
  'error.database_unavailable.text': 'This application cannot reach its storage right now. Try again in a moment.',
  'error.csrf_failed.title': 'Request refused',
  'error.csrf_failed.text': 'This form has expired or did not come from this application. Reload the page and try again.',
  'error.invalid_request.title': 'Request refused',
  'error.invalid_request.text': 'The request could not be understood.',
  'error.not_found.title': 'Not found',
  'error.not_found.text': 'There is no page at this address.',
  'error.method_not_allowed.title': 'Method not allowed',
  'error.method_not_allowed.text': 'This page does not accept that method.',
  'error.server_error.title': 'Something went wrong',
  'error.server_error.text': 'Something went wrong on our side. Try again later.',
} satisfies Record<`error.${ClientErrorCode}.${'title' | 'text'}`, string>;

export const en = {
  'layout.tagline': 'a Gatehouse relying party',
  'layout.language': 'Language',

  'message.errorCode': 'Error code:',
  'message.request': (v: { id: string }) => ` · request ${v.id}`,
  'message.backToApp': 'Back to the application',

  'landing.title': 'Home',
  'landing.welcome': 'Welcome,',
  'landing.email': 'Email',
  'landing.groups': 'Groups',
  'landing.subject': 'Subject',
  'landing.sessionExpires': 'Session expires',
  'landing.tokenExpires': 'Access token expires',
  'landing.tokenScopes': 'Access token scopes',
  'landing.listFailed': (v: { collection: string }) => `Could not list ${v.collection}.`,
  'landing.problem': (v: { status: number; title: string; detail: string | undefined; code: string }) =>
    `The API answered ${v.status} ${v.title}${v.detail ? `: ${v.detail}` : ''} (${v.code}).`,
  'landing.delete': 'Delete',
  'landing.deleteLabel': (v: { collection: string; id: number }) => `Delete ${v.collection} ${v.id}`,
  'landing.none': (v: { collection: string }) => `No ${v.collection} yet.`,
  'landing.add': 'Add',
  'landing.signOut': 'Sign out',
  'landing.manageAccount': 'Manage your account',
  'landing.badId': 'The id must be a positive whole number.',
  'landing.valueRequired': (v: { field: string }) => `Enter a ${v.field}.`,
  'landing.added': (v: { collection: string; id: string }) => `Added ${v.collection} ${v.id}.`,
  'landing.deleted': (v: { collection: string; id: string }) => `Deleted ${v.collection} ${v.id}.`,

  'logout.title': 'Sign out',
  'logout.heading': 'Sign out?',
  'logout.text': (v: { app: string }) => `This signs you out of ${v.app} and of every application that uses your Gatehouse sign-in.`,
  'logout.button': 'Sign out',
  'signedOut.title': 'Signed out',
  'signedOut.text': (v: { app: string }) => `You are signed out of ${v.app}.`,
  'signedOut.again': 'Sign in again',
  ...errors,
};

/** The keys and message shapes every language of the relying party's pages has. */
export type ClientCatalogue = typeof en;
