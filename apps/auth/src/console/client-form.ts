/**
 * The console's client forms, read into the client service's input (admin/client-admin.ts). Rules:
 * - the forms work without script and post distinct field names (the body reader refuses repeated
 *   fields): a grant is a checkbox `grant.<grant type>`, an allowed scope `scope.<scope>`;
 * - redirect and post-logout URIs are one per line; blank lines and surrounding spaces are dropped;
 * - a checkbox is on when sent with any value; an empty text field is "not given" (an empty logo
 *   on the edit form removes the logo);
 * - the edit form sends every field; only the ones that differ from the stored client become
 *   changes, so the audit event names what really changed; the auth method of a public client is
 *   never sent (it has none to choose);
 * - the values are checked by the client store's rules, never here: a refusal comes back from the
 *   service naming its field.
 */
import type { ClientView } from '../admin/client-admin.ts';
import { CLIENT_AUTH_METHODS, CLIENT_GRANT_TYPES, type ClientAuthMethod, type ClientChanges, type NewClient } from '../clients/client-store.ts';

export type Fields = Readonly<Record<string, string>>;

/** What the create and edit forms show: the values of a refused post, or of the stored client. */
export interface ClientFormValues {
  clientId: string;
  name: string;
  logoUri: string;
  public: boolean;
  authMethod: ClientAuthMethod | 'none';
  jwksUri: string;
  redirectUris: string;
  postLogoutRedirectUris: string;
  grantTypes: string[];
  firstParty: boolean;
}

export const NEW_CLIENT_DEFAULTS: ClientFormValues = {
  clientId: '',
  name: '',
  logoUri: '',
  public: false,
  authMethod: 'client_secret_basic',
  jwksUri: '',
  redirectUris: '',
  postLogoutRedirectUris: '',
  grantTypes: ['authorization_code', 'refresh_token'],
  firstParty: false,
};

const text = (fields: Fields, name: string): string => (fields[name] ?? '').trim();
const lines = (value: string): string[] => value.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
const checked = (fields: Fields, name: string): boolean => fields[name] !== undefined;

function authMethodOf(value: string): ClientAuthMethod | 'none' {
  return (CLIENT_AUTH_METHODS as readonly string[]).includes(value) ? (value as ClientAuthMethod) : 'client_secret_basic';
}

/** The posted form as it should be shown again. */
export function formValues(fields: Fields): ClientFormValues {
  const isPublic = fields.type === 'public';
  return {
    clientId: text(fields, 'client_id'),
    name: text(fields, 'name'),
    logoUri: text(fields, 'logo_uri'),
    public: isPublic,
    authMethod: isPublic ? 'none' : authMethodOf(text(fields, 'auth_method')),
    jwksUri: text(fields, 'jwks_uri'),
    redirectUris: fields.redirect_uris ?? '',
    postLogoutRedirectUris: fields.post_logout_redirect_uris ?? '',
    grantTypes: CLIENT_GRANT_TYPES.filter((grant) => checked(fields, `grant.${grant}`)),
    firstParty: checked(fields, 'first_party'),
  };
}

/** A stored client in the edit form. */
export function clientValues(client: ClientView): ClientFormValues {
  return {
    clientId: client.clientId,
    name: client.name,
    logoUri: client.logoUri ?? '',
    public: client.public,
    authMethod: client.tokenEndpointAuthMethod,
    jwksUri: client.jwksUri ?? '',
    redirectUris: client.redirectUris.join('\n'),
    postLogoutRedirectUris: client.postLogoutRedirectUris.join('\n'),
    grantTypes: [...client.grantTypes],
    firstParty: client.firstParty === true,
  };
}

/** The create form as the service's NewClient. */
export function newClientInput(fields: Fields): NewClient {
  const values = formValues(fields);
  return {
    clientId: values.clientId,
    redirectUris: lines(values.redirectUris),
    postLogoutRedirectUris: lines(values.postLogoutRedirectUris),
    public: values.public,
    grantTypes: values.grantTypes,
    ...(values.name !== '' ? { name: values.name } : {}),
    ...(values.logoUri !== '' ? { logoUri: values.logoUri } : {}),
    ...(values.public || values.authMethod === 'none' ? {} : { authMethod: values.authMethod }),
    ...(values.jwksUri !== '' && values.authMethod === 'private_key_jwt' ? { jwksUri: values.jwksUri } : {}),
    ...(values.firstParty ? { firstParty: true } : {}),
  };
}

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((item, i) => item === b[i]);

/** The edit form as the changes to `current` (empty when nothing differs). */
export function clientChanges(current: ClientView, fields: Fields): ClientChanges {
  const values = formValues({ ...fields, type: current.public ? 'public' : 'confidential' });
  const changes: ClientChanges = {};
  const redirectUris = lines(values.redirectUris);
  if (!sameList(redirectUris, current.redirectUris)) changes.redirectUris = redirectUris;
  const postLogout = lines(values.postLogoutRedirectUris);
  if (!sameList(postLogout, current.postLogoutRedirectUris)) changes.postLogoutRedirectUris = postLogout;
  if (!sameList([...values.grantTypes].sort(), [...current.grantTypes].sort())) changes.grantTypes = values.grantTypes;
  if (values.name !== '' && values.name !== current.name) changes.name = values.name;
  if (values.firstParty !== (current.firstParty === true)) changes.firstParty = values.firstParty;
  if (values.logoUri !== (current.logoUri ?? '')) changes.logoUri = values.logoUri === '' ? null : values.logoUri;
  if (!current.public && values.authMethod !== 'none' && values.authMethod !== current.tokenEndpointAuthMethod) changes.authMethod = values.authMethod;
  if (!current.public && values.authMethod === 'private_key_jwt' && values.jwksUri !== '' && values.jwksUri !== (current.jwksUri ?? '')) changes.jwksUri = values.jwksUri;
  return changes;
}

/** The allowed-scopes form: null (any API scope) or the checked scopes of `offered`, in that order. */
export function allowedScopesInput(fields: Fields, offered: readonly string[]): string[] | null {
  if (fields.scopes === 'any') return null;
  return offered.filter((scope) => checked(fields, `scope.${scope}`));
}
