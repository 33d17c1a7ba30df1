/**
 * The console's client forms read into the client service's input (console/client-form.ts): URIs
 * one per line, grants and scopes as distinct checkboxes, and an edit that sends only what differs
 * from the stored client.
 */
import { describe, expect, it } from 'vitest';
import type { ClientView } from '../../src/admin/client-admin.ts';
import { allowedScopesInput, clientChanges, clientValues, formValues, newClientInput } from '../../src/console/client-form.ts';

const STORED: ClientView = {
  clientId: 'shop',
  redirectUris: ['https://shop.example/cb', 'https://shop.example/cb2'],
  postLogoutRedirectUris: [],
  public: false,
  tokenEndpointAuthMethod: 'client_secret_basic',
  grantTypes: ['authorization_code', 'refresh_token'],
  name: 'Shop',
  logoUri: 'https://shop.example/logo.png',
  createdAt: 1,
};

/** The edit form as the stored client fills it, before the admin changes anything. */
function editForm(client: ClientView): Record<string, string> {
  const v = clientValues(client);
  return {
    name: v.name,
    logo_uri: v.logoUri,
    redirect_uris: v.redirectUris,
    post_logout_redirect_uris: v.postLogoutRedirectUris,
    auth_method: v.authMethod,
    jwks_uri: v.jwksUri,
    ...Object.fromEntries(v.grantTypes.map((g) => [`grant.${g}`, 'on'])),
    ...(v.firstParty ? { first_party: 'on' } : {}),
  };
}

describe('console client forms', () => {
  it('reads the create form: lines trimmed, blanks dropped, checkboxes by name, empty text not given', () => {
    expect(
      newClientInput({
        client_id: ' shop ',
        type: 'confidential',
        auth_method: 'client_secret_post',
        name: '',
        logo_uri: '',
        redirect_uris: ' https://shop.example/cb \r\n\r\nhttps://shop.example/cb2\n',
        post_logout_redirect_uris: '',
        'grant.authorization_code': 'on',
        'grant.client_credentials': '',
        'grant.made_up': 'on',
        first_party: 'on',
      }),
    ).toEqual({
      clientId: 'shop',
      redirectUris: ['https://shop.example/cb', 'https://shop.example/cb2'],
      postLogoutRedirectUris: [],
      public: false,
      grantTypes: ['authorization_code', 'client_credentials'],
      authMethod: 'client_secret_post',
      firstParty: true,
    });
    expect(newClientInput({ client_id: 'spa', type: 'public', auth_method: 'client_secret_basic', redirect_uris: 'http://localhost/cb', 'grant.authorization_code': 'on' })).toEqual({
      clientId: 'spa',
      redirectUris: ['http://localhost/cb'],
      postLogoutRedirectUris: [],
      public: true,
      grantTypes: ['authorization_code'],
    });
    expect(formValues({ auth_method: 'made_up' }).authMethod).toBe('client_secret_basic');
  });

  it('an unchanged edit form is no change; each changed field is one change', () => {
    expect(clientChanges(STORED, editForm(STORED))).toEqual({});
    expect(clientChanges(STORED, { ...editForm(STORED), redirect_uris: 'https://shop.example/cb2\nhttps://shop.example/cb' })).toEqual({
      redirectUris: ['https://shop.example/cb2', 'https://shop.example/cb'],
    });
    // The grants' order is not a change; a grant more is.
    const reordered = { ...editForm(STORED) };
    expect(clientChanges({ ...STORED, grantTypes: ['refresh_token', 'authorization_code'] }, reordered)).toEqual({});
    expect(clientChanges(STORED, { ...editForm(STORED), 'grant.client_credentials': 'on' })).toEqual({ grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'] });
    expect(clientChanges(STORED, { ...editForm(STORED), logo_uri: '' })).toEqual({ logoUri: null });
    expect(clientChanges(STORED, { ...editForm(STORED), name: '' })).toEqual({});
    expect(clientChanges(STORED, { ...editForm(STORED), first_party: 'on', auth_method: 'private_key_jwt', jwks_uri: 'https://shop.example/jwks' })).toEqual({
      firstParty: true,
      authMethod: 'private_key_jwt',
      jwksUri: 'https://shop.example/jwks',
    });
  });

  it('never sends an auth method for a public client', () => {
    const spa: ClientView = { ...STORED, clientId: 'spa', public: true, tokenEndpointAuthMethod: 'none' };
    expect(clientChanges(spa, { ...editForm(spa), auth_method: 'client_secret_post' })).toEqual({});
  });

  it('reads the allowed scopes: any, or the checked ones in the offered order', () => {
    const offered = ['movies:read', 'movies:write', 'admin:keys'];
    expect(allowedScopesInput({ scopes: 'any', 'scope.movies:read': 'on' }, offered)).toBeNull();
    expect(allowedScopesInput({ scopes: 'list', 'scope.admin:keys': 'on', 'scope.movies:read': 'on', 'scope.other': 'on' }, offered)).toEqual(['movies:read', 'admin:keys']);
    expect(allowedScopesInput({ scopes: 'list' }, offered)).toEqual([]);
  });
});
