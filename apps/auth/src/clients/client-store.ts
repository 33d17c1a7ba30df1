/**
 * Registered OAuth clients. Rules:
 * - client ids are 1-128 characters of [a-zA-Z0-9._-];
 * - redirect and post-logout URIs are absolute http(s) URLs without a fragment or credentials;
 *   plain http is accepted only for localhost and 127.0.0.1 (RFC 8252 loopback, development);
 * - a client using the authorization_code grant needs at least one redirect URI; a
 *   client_credentials-only client (e.g. the API's introspection client) needs none;
 * - confidential clients get a 32-byte random secret (base64url) unless one of at least 8
 *   characters is given; it is stored sealed and returned in clear only by create(),
 *   rotateSecret() and find() (find() feeds client authentication, client-secret.ts);
 * - rotateSecret() replaces the secret with a new random one in one statement; the replaced secret
 *   stays valid until `now + graceMs` (sealed too); a rotation during a running grace period drops
 *   the older secret: at most two secrets are valid at once. Grace 0 keeps none. An expired previous
 *   secret is never returned (enforced on read with the store's clock, like the adapter's expiry);
 * - update() changes redirect URIs, post-logout URIs, grant types and name, checked with the
 *   same rules as create() on the whole resulting client;
 * - public clients have no secret, authenticate with `none` and cannot use client_credentials;
 *   they may use the device authorization grant (urn:ietf:params:oauth:grant-type:device_code,
 *   RFC 8628), which like client_credentials needs no redirect URI;
 * - `idTokenField` (off by default) names an extra token-response member that repeats the ID
 *   token (the seed's `JWT_token` variant); it must be an identifier that no RFC 6749 / OIDC
 *   token-response member uses;
 * - a confidential client authenticates with exactly one method (RFC 7591
 *   token_endpoint_auth_method): client_secret_basic (the default), client_secret_post,
 *   client_secret_jwt (all three with the sealed secret) or private_key_jwt, which has no secret and
 *   needs exactly one of `jwks` (a JWK Set of public RSA, EC or OKP keys: a private or symmetric
 *   member is refused) and `jwksUri` (https, or http on a loopback host like redirect URIs); keys
 *   belong to private_key_jwt only. Changing an update to another method drops the keys; setting
 *   `jwks` drops `jwksUri` and the reverse. A client without a secret cannot switch to a secret
 *   method until rotateSecret() gives it one;
 * - response types are `code` and `id_token` only (no implicit access tokens); `code` needs the
 *   authorization_code grant and the reverse; `id_token` comes with the `implicit` grant (RFC 7591
 *   §2.1), added when not named; both need a redirect URI. Without a choice they follow the grants:
 *   `code` with authorization_code (the default, stored as null), `id_token` with implicit;
 * - `firstParty` (skips consent unless prompt=consent) and `dpopBoundAccessTokens` (RFC 9449) are
 *   off by default; the record carries each only when on;
 * - `logoUri` (RFC 7591 `logo_uri`, shown on the login, second-factor and consent pages, whose CSP then allows its origin for
 *   images) is optional: an absolute https URL (http only on localhost / 127.0.0.1, like redirect
 *   URIs) of at most 2048 characters, without credentials or fragment, whose host is a DNS name or
 *   an IP address (its origin goes into a CSP header verbatim: no `;`, `,` or quote may reach it).
 *   update() sets it with a URL and removes it with null;
 * - the token-exchange grant (RFC 8693) is for confidential clients, and comes with the client's
 *   `tokenExchange` policy (token-exchange-policy.ts): the one needs the other. An update that
 *   drops the grant drops the policy; update() removes it with null;
 * - `backchannelLogoutUri` (OpenID Connect Back-Channel Logout 1.0 §2.2 `backchannel_logout_uri`)
 *   is optional: an absolute https URL (http for a confidential client, as §2.2 allows, and for a
 *   public one only on localhost / 127.0.0.1), at most 2048
 *   characters, without fragment or credentials (a query is allowed); `backchannelLogoutSessionRequired`
 *   (the logout token carries `sid`) needs one. update() removes the URI with null, and with it
 *   the session requirement.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { precompile } from '@gatehouse/db';
import type { SecretBox } from '../crypto/secret-box.ts';
import { reportingChange, type ClientChangeTracker } from './client-change-tracker.ts';
import type { AuthSchema, ClientsTable } from '../storage/schema.ts';
import { CodedError } from '../errors/coded-error.ts';
import { checkTokenExchangePolicy, TOKEN_EXCHANGE_GRANT, TokenExchangePolicyError, type TokenExchangePolicy } from './token-exchange-policy.ts';

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'private_key_jwt';
export type ClientResponseType = 'code' | 'id_token';

/** A JSON Web Key Set of public keys (RFC 7517 §5), as registered for private_key_jwt. */
export interface ClientJwks {
  keys: Record<string, unknown>[];
}

export interface ClientRecord {
  clientId: string;
  /** Plaintext, decrypted; confidential clients only. */
  clientSecret?: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  public: boolean;
  tokenEndpointAuthMethod: ClientAuthMethod | 'none';
  grantTypes: string[];
  name: string;
  /** Extra token-response member that carries the ID token too, e.g. `JWT_token`. */
  idTokenField?: string;
  /** The API scopes the client may be granted (`authctl client scopes`, policy/); absent: any. */
  allowedScopes?: string[];
  /** Plaintext: the secret the last rotation replaced, present only while its grace period runs. */
  previousClientSecret?: string;
  /** When the previous secret stops working (epoch ms); present with previousClientSecret. */
  previousSecretExpiresAt?: number;
  createdAt: number;
  /** Last change of the registration or secret (epoch ms), absent before the first. */
  updatedAt?: number;
  /** Last secret rotation (epoch ms), absent before the first. */
  secretRotatedAt?: number;
  /** Present (true) only for a first-party client: it skips consent unless prompt=consent is sent. */
  firstParty?: boolean;
  /** Present only when chosen and not the default (responseTypesOf() gives the effective list). */
  responseTypes?: ClientResponseType[];
  /** private_key_jwt: the client's public keys, inline... */
  jwks?: ClientJwks;
  /** ...or by URL (exactly one of the two). */
  jwksUri?: string;
  /** Present (true) only when the client's access tokens must be DPoP-bound (RFC 9449). */
  dpopBoundAccessTokens?: boolean;
  /** The client's logo (RFC 7591 `logo_uri`), shown on the consent page; absent: none. */
  logoUri?: string;
  /** With the token-exchange grant only: the audiences and scopes it may exchange for. */
  tokenExchange?: TokenExchangePolicy;
  /** Where logout tokens are posted (Back-Channel Logout 1.0 `backchannel_logout_uri`); absent: none. */
  backchannelLogoutUri?: string;
  /** Present (true) only when logout tokens must carry `sid` (`backchannel_logout_session_required`). */
  backchannelLogoutSessionRequired?: boolean;
}

export interface NewClient {
  clientId: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  public?: boolean;
  authMethod?: ClientAuthMethod;
  grantTypes?: string[];
  name?: string;
  /** Explicit secret, for development seeding; generated when absent. */
  clientSecret?: string;
  idTokenField?: string;
  firstParty?: boolean;
  responseTypes?: string[];
  jwks?: ClientJwks;
  jwksUri?: string;
  dpopBoundAccessTokens?: boolean;
  logoUri?: string;
  tokenExchange?: TokenExchangePolicy;
  backchannelLogoutUri?: string;
  backchannelLogoutSessionRequired?: boolean;
}

/** The fields update() changes; an absent field keeps its value. */
export interface ClientChanges {
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  grantTypes?: string[];
  name?: string;
  firstParty?: boolean;
  responseTypes?: string[];
  authMethod?: ClientAuthMethod;
  jwks?: ClientJwks;
  jwksUri?: string;
  dpopBoundAccessTokens?: boolean;
  /** A URL sets the logo, null removes it. */
  logoUri?: string | null;
  /** A policy sets it, null removes it (with the token-exchange grant). */
  tokenExchange?: TokenExchangePolicy | null;
  /** A URL sets the back-channel logout URI, null removes it (and the session requirement). */
  backchannelLogoutUri?: string | null;
  backchannelLogoutSessionRequired?: boolean;
}

export interface RotatedSecret {
  clientId: string;
  /** The new secret, in clear: shown once. */
  clientSecret: string;
  /** When the replaced secret stops working (epoch ms); absent with a grace period of 0. */
  previousSecretExpiresAt?: number;
}

export interface ClientStore {
  /** Throws ClientRegistryError. Returns the secret in clear once, for confidential clients. */
  create(input: NewClient): Promise<{ clientId: string; clientSecret?: string }>;
  find(clientId: string): Promise<ClientRecord | undefined>;
  /** By client id; with `limit`, at most that many after the client id `after` (keyset paging). */
  list(page?: { after?: string; limit?: number }): Promise<ClientRecord[]>;
  /** Throws ClientRegistryError (`unknown_client`, or a rule of create()). */
  update(clientId: string, changes: ClientChanges): Promise<ClientRecord>;
  /** Throws ClientRegistryError `unknown_client` or `public_client`. */
  rotateSecret(clientId: string, graceMs: number): Promise<RotatedSecret>;
  remove(clientId: string): Promise<boolean>;
}

export type ClientRegistryErrorCode = 'duplicate_client' | 'invalid_redirect_uri' | 'invalid_input' | 'unknown_client' | 'public_client';

/**
 * The field a refusal is about (admin API field errors): a registration field by its RFC 7591
 * metadata name, or an input of the client service (client-admin.ts: grace period, page cursor).
 */
export type ClientField =
  | 'client_id'
  | 'redirect_uris'
  | 'post_logout_redirect_uris'
  | 'grant_types'
  | 'token_endpoint_auth_method'
  | 'client_secret'
  | 'name'
  | 'id_token_field'
  | 'first_party'
  | 'response_types'
  | 'jwks'
  | 'jwks_uri'
  | 'dpop_bound_access_tokens'
  | 'logo_uri'
  | 'token_exchange'
  | 'backchannel_logout_uri'
  | 'backchannel_logout_session_required'
  | 'grace_seconds'
  | 'after';

export class ClientRegistryError extends CodedError<ClientRegistryErrorCode> {
  /** Set when one field is at fault, so callers need not read the message. */
  readonly field: ClientField | undefined;
  constructor(code: ClientRegistryErrorCode, message: string, field?: ClientField) {
    super(code, message);
    this.field = field;
  }
}

export const DEFAULT_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token'];
/** The device authorization grant (RFC 8628 §3.4); public clients may use it. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** Every grant type a client may be registered for: the one list the checks, their messages and the admin API's schema use. */
export const CLIENT_GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token', 'client_credentials', 'implicit', TOKEN_EXCHANGE_GRANT, DEVICE_CODE_GRANT];
const SUPPORTED_GRANT_TYPES = new Set(CLIENT_GRANT_TYPES);
export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'];
const AUTH_METHODS = new Set<string>(CLIENT_AUTH_METHODS);
/** The methods that authenticate with the client's secret. */
const SECRET_AUTH_METHODS: ReadonlySet<string> = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
export const CLIENT_RESPONSE_TYPES: readonly ClientResponseType[] = ['code', 'id_token'];
const RESPONSE_TYPES = new Set<string>(CLIENT_RESPONSE_TYPES);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);
const JWK_KEY_TYPES = new Set(['RSA', 'EC', 'OKP']);
const JWK_PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];
const MAX_JWKS_CHARS = 65_536;
const MAX_JWKS_KEYS = 32;
const MAX_LOGO_URI_CHARS = 2048;
const TOKEN_RESPONSE_MEMBERS = new Set([
  'access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'id_token', 'state',
  'error', 'error_description', 'error_uri', 'issued_token_type', 'authorization_details',
]);

/** Checks one redirect or post-logout URI; throws `invalid_redirect_uri` naming it (and `field`). */
export function checkRedirectUri(uri: string, field: 'redirect_uris' | 'post_logout_redirect_uris' = 'redirect_uris'): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" is not an absolute URL`, field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must use https (or http on localhost)`, field);
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must use https; http is allowed only for localhost and 127.0.0.1`, field);
  }
  if (uri.includes('#')) throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must not contain a fragment`, field);
  if (url.username || url.password) throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must not contain credentials`, field);
  // The origin of a redirect or post-logout URI goes into a page's CSP form-action as it is.
  if (!isSafeHost(url.hostname)) throw new ClientRegistryError('invalid_redirect_uri', `redirect URI "${uri}" must name its host by a DNS name or an IP address`, field);
}

function validate(input: NewClient): Omit<ClientRecord, 'createdAt'> {
  if (!/^[a-zA-Z0-9._-]{1,128}$/.test(input.clientId)) {
    throw new ClientRegistryError('invalid_input', 'client_id must be 1-128 characters of letters, digits, ".", "_" or "-"', 'client_id');
  }
  const responseTypes = input.responseTypes === undefined ? undefined : [...new Set(input.responseTypes)];
  if (responseTypes !== undefined) {
    const unknownType = responseTypes.find((t) => !RESPONSE_TYPES.has(t));
    if (unknownType !== undefined) {
      throw new ClientRegistryError('invalid_input', `response type "${unknownType}" is not supported (use code or id_token)`, 'response_types');
    }
  }
  // Without a choice of grants, they follow the response types (RFC 7591 §2.1).
  let defaultGrants: readonly string[] = DEFAULT_GRANT_TYPES;
  if (responseTypes !== undefined && !responseTypes.includes('code')) defaultGrants = responseTypes.includes('id_token') ? ['implicit'] : [];
  const grantTypes = [...new Set(input.grantTypes?.length ? input.grantTypes : defaultGrants)];
  const unsupported = grantTypes.find((g) => !SUPPORTED_GRANT_TYPES.has(g));
  if (unsupported) {
    throw new ClientRegistryError('invalid_input', `grant type "${unsupported}" is not supported (use ${CLIENT_GRANT_TYPES.join(', ')})`, 'grant_types');
  }
  // Without a choice of response types, they follow the grants: code with authorization_code, id_token with implicit.
  const codeDefault = grantTypes.includes('authorization_code') ? ['code'] : [];
  const effectiveResponseTypes = responseTypes ?? [...codeDefault, ...(grantTypes.includes('implicit') ? ['id_token'] : [])];
  if (effectiveResponseTypes.includes('id_token') && !grantTypes.includes('implicit')) grantTypes.push('implicit');
  if (grantTypes.length === 0) throw new ClientRegistryError('invalid_input', 'a client needs at least one grant type', 'grant_types');
  if (effectiveResponseTypes.includes('code') !== grantTypes.includes('authorization_code')) {
    throw new ClientRegistryError('invalid_input', 'the response type code and the authorization_code grant go together: give both or neither', 'response_types');
  }
  if (grantTypes.includes('implicit') && !effectiveResponseTypes.includes('id_token')) {
    throw new ClientRegistryError('invalid_input', 'the implicit grant needs the response type id_token (implicit access tokens are not supported)', 'grant_types');
  }
  const isPublic = input.public ?? false;
  if (input.authMethod !== undefined && !AUTH_METHODS.has(input.authMethod)) {
    throw new ClientRegistryError('invalid_input', `auth method "${input.authMethod}" is not supported (use ${CLIENT_AUTH_METHODS.join(', ')})`, 'token_endpoint_auth_method');
  }
  if (isPublic) {
    if (input.authMethod) throw new ClientRegistryError('invalid_input', 'a public client has no secret, so an auth method does not apply', 'token_endpoint_auth_method');
    if (input.clientSecret !== undefined) throw new ClientRegistryError('invalid_input', 'a public client cannot have a secret', 'client_secret');
    if (grantTypes.includes('client_credentials')) throw new ClientRegistryError('invalid_input', 'a public client cannot use the client_credentials grant', 'grant_types');
    if (grantTypes.includes(TOKEN_EXCHANGE_GRANT)) throw new ClientRegistryError('invalid_input', 'a public client cannot use the token-exchange grant', 'grant_types');
  }
  const authMethod = isPublic ? 'none' : (input.authMethod ?? 'client_secret_basic');
  if (input.clientSecret !== undefined && authMethod === 'private_key_jwt') {
    throw new ClientRegistryError('invalid_input', 'a private_key_jwt client authenticates with its keys: it has no secret', 'client_secret');
  }
  if (input.clientSecret !== undefined && input.clientSecret.length < 8) {
    throw new ClientRegistryError('invalid_input', 'client secret must be at least 8 characters', 'client_secret');
  }
  if (authMethod === 'private_key_jwt') {
    if ((input.jwks === undefined) === (input.jwksUri === undefined)) {
      throw new ClientRegistryError('invalid_input', 'a private_key_jwt client needs exactly one of jwks and jwks_uri', input.jwks === undefined ? 'jwks' : 'jwks_uri');
    }
    if (input.jwks !== undefined) checkJwks(input.jwks);
    if (input.jwksUri !== undefined) checkJwksUri(input.jwksUri);
  } else {
    if (input.jwks !== undefined) throw new ClientRegistryError('invalid_input', 'jwks applies only to the private_key_jwt auth method', 'jwks');
    if (input.jwksUri !== undefined) throw new ClientRegistryError('invalid_input', 'jwks_uri applies only to the private_key_jwt auth method', 'jwks_uri');
  }
  const redirectUris = [...new Set(input.redirectUris)];
  const postLogoutRedirectUris = [...new Set(input.postLogoutRedirectUris ?? [])];
  for (const uri of redirectUris) checkRedirectUri(uri, 'redirect_uris');
  for (const uri of postLogoutRedirectUris) checkRedirectUri(uri, 'post_logout_redirect_uris');
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0) {
    throw new ClientRegistryError('invalid_redirect_uri', 'at least one redirect URI is required for the authorization_code grant', 'redirect_uris');
  }
  if (grantTypes.includes('implicit') && redirectUris.length === 0) {
    throw new ClientRegistryError('invalid_redirect_uri', 'at least one redirect URI is required for the response type id_token', 'redirect_uris');
  }
  if (grantTypes.includes('implicit')) {
    // oidc-provider takes a client with http loopback URIs as native (RFC 8252), and a native
    // client may not use https on a loopback host: toOidcClientMetadata() cannot map a mix.
    const all = [...redirectUris, ...postLogoutRedirectUris].map((u) => new URL(u));
    if (all.some((u) => u.protocol === 'http:') && all.some((u) => u.protocol === 'https:' && LOOPBACK_HOSTS.has(u.hostname))) {
      throw new ClientRegistryError('invalid_redirect_uri', 'a client using the response type id_token cannot mix http and https URIs on a loopback host', 'redirect_uris');
    }
  }
  if (input.idTokenField !== undefined) {
    if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(input.idTokenField)) {
      throw new ClientRegistryError('invalid_input', 'ID token field must be 1-64 letters, digits or "_", starting with a letter (e.g. JWT_token)', 'id_token_field');
    }
    if (TOKEN_RESPONSE_MEMBERS.has(input.idTokenField)) {
      throw new ClientRegistryError('invalid_input', `ID token field "${input.idTokenField}" is already a token-response member`, 'id_token_field');
    }
  }
  const name = (input.name ?? input.clientId).trim();
  if (!name || name.length > 128 || /\p{Cc}/u.test(name)) {
    throw new ClientRegistryError('invalid_input', 'client name must be 1-128 characters without control characters', 'name');
  }
  if (input.logoUri !== undefined) checkLogoUri(input.logoUri);
  const tokenExchange = checkedTokenExchange(grantTypes, input.tokenExchange);
  if (input.backchannelLogoutUri !== undefined) checkBackchannelLogoutUri(input.backchannelLogoutUri, isPublic);
  if (input.backchannelLogoutSessionRequired && input.backchannelLogoutUri === undefined) {
    throw new ClientRegistryError('invalid_input', 'backchannel_logout_session_required needs a backchannel_logout_uri', 'backchannel_logout_session_required');
  }
  const isDefaultResponseTypes = sameSet(effectiveResponseTypes, codeDefault);
  return {
    clientId: input.clientId,
    redirectUris,
    postLogoutRedirectUris,
    public: isPublic,
    tokenEndpointAuthMethod: authMethod,
    grantTypes,
    name,
    ...(input.idTokenField !== undefined ? { idTokenField: input.idTokenField } : {}),
    ...(input.firstParty ? { firstParty: true } : {}),
    ...(isDefaultResponseTypes ? {} : { responseTypes: effectiveResponseTypes as ClientResponseType[] }),
    ...(authMethod === 'private_key_jwt' && input.jwks !== undefined ? { jwks: input.jwks } : {}),
    ...(authMethod === 'private_key_jwt' && input.jwksUri !== undefined ? { jwksUri: input.jwksUri } : {}),
    ...(input.dpopBoundAccessTokens ? { dpopBoundAccessTokens: true } : {}),
    ...(input.logoUri !== undefined ? { logoUri: input.logoUri } : {}),
    ...(tokenExchange !== undefined ? { tokenExchange } : {}),
    ...(input.backchannelLogoutUri !== undefined ? { backchannelLogoutUri: input.backchannelLogoutUri } : {}),
    ...(input.backchannelLogoutSessionRequired ? { backchannelLogoutSessionRequired: true } : {}),
  };
}

/** The token-exchange grant and its policy go together (token-exchange-policy.ts). */
function checkedTokenExchange(grantTypes: readonly string[], policy: TokenExchangePolicy | undefined): TokenExchangePolicy | undefined {
  const granted = grantTypes.includes(TOKEN_EXCHANGE_GRANT);
  if (policy === undefined) {
    if (granted) throw new ClientRegistryError('invalid_input', 'the token-exchange grant needs a token_exchange policy (audiences and scopes)', 'token_exchange');
    return undefined;
  }
  if (!granted) throw new ClientRegistryError('invalid_input', 'token_exchange applies only to a client with the token-exchange grant', 'token_exchange');
  try {
    return checkTokenExchangePolicy(policy);
  } catch (error) {
    if (error instanceof TokenExchangePolicyError) throw new ClientRegistryError('invalid_input', error.message, 'token_exchange');
    throw error;
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** The client's response types: the chosen ones, else `code` with authorization_code, else none. */
export function responseTypesOf(c: Pick<ClientRecord, 'responseTypes' | 'grantTypes'>): ClientResponseType[] {
  if (c.responseTypes) return [...c.responseTypes];
  return c.grantTypes.length === 0 || c.grantTypes.includes('authorization_code') ? ['code'] : [];
}

/** Checks a JWK Set for private_key_jwt: public RSA, EC or OKP keys only; throws `invalid_input` (`jwks`). */
function checkJwks(jwks: unknown): void {
  const invalid = (why: string) => new ClientRegistryError('invalid_input', `jwks ${why}`, 'jwks');
  if (typeof jwks !== 'object' || jwks === null || Array.isArray(jwks)) throw invalid('must be a JSON Web Key Set: an object with a "keys" array');
  const keys = (jwks as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) throw invalid('must be a JSON Web Key Set: an object with a non-empty "keys" array');
  if (keys.length > MAX_JWKS_KEYS) throw invalid(`must hold at most ${MAX_JWKS_KEYS} keys`);
  if (JSON.stringify(jwks).length > MAX_JWKS_CHARS) throw invalid(`must be at most ${MAX_JWKS_CHARS} characters of JSON`);
  keys.forEach((key: unknown, i) => {
    if (typeof key !== 'object' || key === null || Array.isArray(key)) throw invalid(`key ${i} is not a JSON object`);
    const jwk = key as Record<string, unknown>;
    const secret = JWK_PRIVATE_MEMBERS.find((member) => member in jwk);
    if (secret !== undefined) throw invalid(`key ${i} has the private member "${secret}": register the public keys only`);
    if (typeof jwk.kty !== 'string' || !JWK_KEY_TYPES.has(jwk.kty)) throw invalid(`key ${i} must have kty RSA, EC or OKP`);
    const needed = jwk.kty === 'RSA' ? ['n', 'e'] : jwk.kty === 'EC' ? ['crv', 'x', 'y'] : ['crv', 'x'];
    const missing = needed.find((member) => typeof jwk[member] !== 'string' || jwk[member] === '');
    if (missing !== undefined) throw invalid(`key ${i} (${jwk.kty}) lacks "${missing}"`);
    for (const member of ['kid', 'alg', 'use']) {
      if (jwk[member] !== undefined && (typeof jwk[member] !== 'string' || jwk[member] === '')) throw invalid(`key ${i} has a "${member}" that is not a non-empty string`);
    }
  });
}

/** jwks_uri: https, or http on a loopback host (development), without fragment or credentials. */
function checkJwksUri(uri: string): void {
  const invalid = (why: string) => new ClientRegistryError('invalid_input', `jwks_uri "${uri}" ${why}`, 'jwks_uri');
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalid('is not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    throw invalid('must use https; http is allowed only for localhost and 127.0.0.1');
  }
  if (uri.includes('#')) throw invalid('must not contain a fragment');
  if (url.username || url.password) throw invalid('must not contain credentials');
}

/**
 * logo_uri: https, or http on a loopback host, without fragment or credentials, at most 2048
 * characters, on a DNS name or IP address. The host check matters beyond form: the URL parser lets
 * `;`, `,` and `'` through in a host, and the consent page puts this origin into its CSP header.
 */
function checkLogoUri(uri: string): void {
  const url = checkedClientUri('logo_uri', uri, (u) => u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname)), 'http is allowed only for localhost and 127.0.0.1');
  if (!isSafeHost(url.hostname)) throw new ClientRegistryError('invalid_input', `logo_uri "${uri}" must name its host by a DNS name or an IP address`, 'logo_uri');
}

/**
 * backchannel_logout_uri (Back-Channel Logout 1.0 §2.2): absolute, https, or http for a
 * confidential client (§2.2: "MAY use the http scheme, provided that the Client Type is
 * confidential") and for a public one on a loopback host; no fragment, no credentials, at most
 * 2048 characters; a query is allowed.
 */
function checkBackchannelLogoutUri(uri: string, isPublic: boolean): void {
  checkedClientUri('backchannel_logout_uri', uri, (u) => u.protocol === 'https:' || (u.protocol === 'http:' && (!isPublic || LOOPBACK_HOSTS.has(u.hostname))), 'http is allowed only for a confidential client, or for localhost and 127.0.0.1');
}

/**
 * The rules every URL of a client's metadata shares, checked in this order: at most
 * MAX_LOGO_URI_CHARS characters, absolute, a scheme `schemeAllowed` accepts (else "must use https;
 * <httpRule>"), no fragment, no credentials. Each refusal names `field`.
 */
function checkedClientUri(field: 'logo_uri' | 'backchannel_logout_uri', uri: string, schemeAllowed: (url: URL) => boolean, httpRule: string): URL {
  const invalid = (why: string) => new ClientRegistryError('invalid_input', `${field} ${why}`, field);
  if (uri.length > MAX_LOGO_URI_CHARS) throw invalid(`must be at most ${MAX_LOGO_URI_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalid(`"${uri}" is not an absolute URL`);
  }
  if (!schemeAllowed(url)) throw invalid(`"${uri}" must use https; ${httpRule}`);
  if (uri.includes('#')) throw invalid(`"${uri}" must not contain a fragment`);
  if (url.username || url.password) throw invalid(`"${uri}" must not contain credentials`);
  return url;
}

/** A DNS name (letters, digits, `-`, `.`), an IPv4 address, or a bracketed IPv6 address, as URL.hostname gives them. */
function isSafeHost(hostname: string): boolean {
  return /^[a-z0-9-]+(\.[a-z0-9-]+)*\.?$/.test(hostname) || /^\[[0-9a-f:.]+\]$/.test(hostname);
}

/**
 * A client row as the store returns it: secrets opened with `box` (each sealed text opened once),
 * a previous secret only while its grace period runs by `clock`. For whoever reads client rows
 * (this store, and the token path's joined reads: oidc/token-path-reads.ts).
 */
export function createClientRowReader(box: SecretBox, clock: () => number = Date.now): (row: Selectable<ClientsTable>) => ClientRecord {
  // The token endpoint reads its client on every request: the decryption of a sealed value seen
  // before is skipped, since the same sealed text always opens to the same secret.
  const opened = new Map<string, string>();
  const open = (sealed: string): string => {
    let secret = opened.get(sealed);
    if (secret === undefined) {
      secret = box.open(sealed);
      if (opened.size >= 1024) opened.clear();
      opened.set(sealed, secret);
    }
    return secret;
  };
  // Optional members are assigned, not spread in: after a spread V8 defines every later member
  // of the literal through its runtime, and this runs on every token request (bench/README.md, "Token path").
  return (row: Selectable<ClientsTable>): ClientRecord => {
    const record: ClientRecord = {
      clientId: row.client_id,
      redirectUris: JSON.parse(row.redirect_uris) as string[],
      postLogoutRedirectUris: JSON.parse(row.post_logout_redirect_uris) as string[],
      public: row.public === 1,
      tokenEndpointAuthMethod: row.token_endpoint_auth_method as ClientRecord['tokenEndpointAuthMethod'],
      grantTypes: JSON.parse(row.grant_types) as string[],
      name: row.name,
      createdAt: Number(row.created_at),
    };
    if (row.client_secret_sealed !== null) record.clientSecret = open(row.client_secret_sealed);
    if (row.previous_secret_sealed && row.previous_secret_expires_at !== null && row.previous_secret_expires_at !== undefined && Number(row.previous_secret_expires_at) > clock()) {
      record.previousClientSecret = open(row.previous_secret_sealed);
      record.previousSecretExpiresAt = Number(row.previous_secret_expires_at);
    }
    if (row.id_token_field) record.idTokenField = row.id_token_field;
    if (row.allowed_scopes != null) record.allowedScopes = JSON.parse(row.allowed_scopes) as string[];
    if (row.updated_at !== null && row.updated_at !== undefined) record.updatedAt = Number(row.updated_at);
    if (row.secret_rotated_at !== null && row.secret_rotated_at !== undefined) record.secretRotatedAt = Number(row.secret_rotated_at);
    if (row.first_party === 1) record.firstParty = true;
    if (row.response_types != null) record.responseTypes = JSON.parse(row.response_types) as ClientResponseType[];
    if (row.jwks != null) record.jwks = JSON.parse(row.jwks) as ClientJwks;
    if (row.jwks_uri != null) record.jwksUri = row.jwks_uri;
    if (row.dpop_bound_access_tokens === 1) record.dpopBoundAccessTokens = true;
    if (row.logo_uri != null) record.logoUri = row.logo_uri;
    if (row.token_exchange != null) record.tokenExchange = JSON.parse(row.token_exchange) as TokenExchangePolicy;
    if (row.backchannel_logout_uri != null) record.backchannelLogoutUri = row.backchannel_logout_uri;
    if (row.backchannel_logout_session_required === 1) record.backchannelLogoutSessionRequired = true;
    return record;
  };
}

/**
 * `clock` (epoch ms) stamps createdAt; it defaults to the system time. `changes`: told of every
 * write, since client rows kept by the token path must not be reused after one
 * (client-change-tracker.ts).
 */
export function createClientStore(db: Kysely<AuthSchema>, box: SecretBox, clock: () => number = Date.now, changes?: Pick<ClientChangeTracker, 'changed'>): ClientStore {
  const toRecord = createClientRowReader(box, clock);
  const unknown = (clientId: string) => new ClientRegistryError('unknown_client', `unknown client "${clientId}"`);
  // Run by every request that authenticates a client (token endpoint): compiled once.
  const findQuery = precompile(db, ['clientId'], (v) => db.selectFrom('clients').selectAll().where('client_id', '=', v.clientId));
  const find = async (clientId: string): Promise<ClientRecord | undefined> => {
    const row = (await findQuery({ clientId })).rows[0];
    return row && toRecord(row);
  };

  // The token path reuses client rows until a change (client-change-tracker.ts): every write is reported.
  const writing = <T>(write: () => Promise<T>) => reportingChange(changes, write);

  return {
    async create(input) {
      const client = validate(input);
      const secret = SECRET_AUTH_METHODS.has(client.tokenEndpointAuthMethod) ? (input.clientSecret ?? randomBytes(32).toString('base64url')) : undefined;
      const result = await writing(() =>
        db
          .insertInto('clients')
          .values({
            client_id: client.clientId,
            client_secret_sealed: secret === undefined ? null : box.seal(secret),
            redirect_uris: JSON.stringify(client.redirectUris),
            post_logout_redirect_uris: JSON.stringify(client.postLogoutRedirectUris),
            public: client.public ? 1 : 0,
            token_endpoint_auth_method: client.tokenEndpointAuthMethod,
            grant_types: JSON.stringify(client.grantTypes),
            name: client.name,
            id_token_field: client.idTokenField ?? null,
            ...storedMetadata(client),
            created_at: clock(),
          })
          .onConflict((oc) => oc.column('client_id').doNothing())
          .executeTakeFirst(),
      );
      if (Number(result.numInsertedOrUpdatedRows ?? 0) !== 1) {
        throw new ClientRegistryError('duplicate_client', `client "${client.clientId}" already exists`);
      }
      return secret === undefined ? { clientId: client.clientId } : { clientId: client.clientId, clientSecret: secret };
    },

    find,

    async list(page = {}) {
      let query = db.selectFrom('clients').selectAll().orderBy('client_id');
      if (page.after !== undefined) query = query.where('client_id', '>', page.after);
      if (page.limit !== undefined) query = query.limit(page.limit);
      return (await query.execute()).map(toRecord);
    },

    async update(clientId, changes) {
      const current = await find(clientId);
      if (!current) throw unknown(clientId);
      // validate() reads an empty grant list as the default; an update has to name the grants.
      if (changes.grantTypes !== undefined && changes.grantTypes.length === 0) {
        throw new ClientRegistryError('invalid_input', 'a client needs at least one grant type', 'grant_types');
      }
      if (changes.responseTypes !== undefined && changes.responseTypes.length === 0) {
        throw new ClientRegistryError('invalid_input', 'give at least one response type (code or id_token)', 'response_types');
      }
      if (changes.authMethod !== undefined && current.public) {
        throw new ClientRegistryError('invalid_input', 'a public client has no secret, so an auth method does not apply', 'token_endpoint_auth_method');
      }
      const authMethod = changes.authMethod ?? (current.tokenEndpointAuthMethod === 'none' ? undefined : current.tokenEndpointAuthMethod);
      if (authMethod !== undefined && SECRET_AUTH_METHODS.has(authMethod) && current.clientSecret === undefined && !current.public) {
        throw new ClientRegistryError('invalid_input', `client "${clientId}" has no secret: rotate its secret first, then choose ${authMethod}`, 'token_endpoint_auth_method');
      }
      // Keys: new ones replace the old (jwks or jwks_uri, one of them); another method drops them.
      let keys: Pick<NewClient, 'jwks' | 'jwksUri'> = {};
      if (changes.jwks !== undefined || changes.jwksUri !== undefined) keys = { ...(changes.jwks !== undefined ? { jwks: changes.jwks } : {}), ...(changes.jwksUri !== undefined ? { jwksUri: changes.jwksUri } : {}) };
      else if (authMethod === 'private_key_jwt') keys = { ...(current.jwks ? { jwks: current.jwks } : {}), ...(current.jwksUri ? { jwksUri: current.jwksUri } : {}) };
      // New response types without new grants: the grants follow them (implicit and authorization_code).
      let grantTypes = changes.grantTypes ?? current.grantTypes;
      if (changes.responseTypes !== undefined && changes.grantTypes === undefined) {
        grantTypes = current.grantTypes.filter((g) => g !== 'implicit' && g !== 'authorization_code');
        if (changes.responseTypes.includes('code')) grantTypes.unshift('authorization_code');
        if (changes.responseTypes.includes('id_token')) grantTypes.push('implicit');
        if (!changes.responseTypes.includes('code')) grantTypes = grantTypes.filter((g) => g !== 'refresh_token');
      }
      const next = validate({
        clientId,
        redirectUris: changes.redirectUris ?? current.redirectUris,
        postLogoutRedirectUris: changes.postLogoutRedirectUris ?? current.postLogoutRedirectUris,
        public: current.public,
        ...(authMethod !== undefined ? { authMethod } : {}),
        grantTypes,
        name: changes.name ?? current.name,
        ...(current.idTokenField !== undefined ? { idTokenField: current.idTokenField } : {}),
        firstParty: changes.firstParty ?? current.firstParty ?? false,
        responseTypes: changes.responseTypes ?? (changes.grantTypes !== undefined ? undefined : current.responseTypes),
        ...keys,
        dpopBoundAccessTokens: changes.dpopBoundAccessTokens ?? current.dpopBoundAccessTokens ?? false,
        ...(changes.logoUri === null ? {} : (changes.logoUri ?? current.logoUri) !== undefined ? { logoUri: (changes.logoUri ?? current.logoUri)! } : {}),
        ...tokenExchangeAfter(changes.tokenExchange, current.tokenExchange, grantTypes),
        ...backchannelChanges(current, changes),
      });
      const result = await writing(() =>
        db
          .updateTable('clients')
          .set({
            redirect_uris: JSON.stringify(next.redirectUris),
            post_logout_redirect_uris: JSON.stringify(next.postLogoutRedirectUris),
            grant_types: JSON.stringify(next.grantTypes),
            name: next.name,
            token_endpoint_auth_method: next.tokenEndpointAuthMethod,
            ...storedMetadata(next),
            updated_at: clock(),
          })
          .where('client_id', '=', clientId)
          .executeTakeFirst(),
      );
      const updated = Number(result.numUpdatedRows) === 1 ? await find(clientId) : undefined;
      if (!updated) throw unknown(clientId);
      return updated;
    },

    async rotateSecret(clientId, graceMs) {
      const current = await find(clientId);
      if (!current) throw unknown(clientId);
      if (current.public) throw new ClientRegistryError('public_client', `client "${clientId}" is public: it has no secret to rotate`);
      const secret = randomBytes(32).toString('base64url');
      const now = clock();
      const expiresAt = graceMs > 0 ? now + graceMs : null;
      // One statement: the secret in force when it runs becomes the previous one, so concurrent
      // rotations each keep the secret they replaced, never a stale read.
      const result = await writing(() =>
        db
          .updateTable('clients')
          .set((eb) => ({
            client_secret_sealed: box.seal(secret),
            previous_secret_sealed: expiresAt === null ? null : eb.ref('client_secret_sealed'),
            previous_secret_expires_at: expiresAt,
            secret_rotated_at: now,
            updated_at: now,
          }))
          .where('client_id', '=', clientId)
          .where('public', '=', 0)
          .executeTakeFirst(),
      );
      if (Number(result.numUpdatedRows) !== 1) throw unknown(clientId);
      return { clientId, clientSecret: secret, ...(expiresAt === null ? {} : { previousSecretExpiresAt: expiresAt }) };
    },

    async remove(clientId) {
      const result = await writing(() => db.deleteFrom('clients').where('client_id', '=', clientId).executeTakeFirst());
      return Number(result.numDeletedRows) > 0;
    },
  };
}

/** The policy an update leaves: the given one, none for null, else the current one while the grant stays. */
function tokenExchangeAfter(change: TokenExchangePolicy | null | undefined, current: TokenExchangePolicy | undefined, grantTypes: readonly string[]): Pick<NewClient, 'tokenExchange'> {
  if (change === null) return {};
  if (change !== undefined) return { tokenExchange: change };
  return current !== undefined && grantTypes.includes(TOKEN_EXCHANGE_GRANT) ? { tokenExchange: current } : {};
}

/** The back-channel logout fields after `changes`: a removed URI takes the session requirement with it. */
function backchannelChanges(current: ClientRecord, changes: ClientChanges): Pick<NewClient, 'backchannelLogoutUri' | 'backchannelLogoutSessionRequired'> {
  if (changes.backchannelLogoutUri === null) {
    if (changes.backchannelLogoutSessionRequired) {
      throw new ClientRegistryError('invalid_input', 'backchannel_logout_session_required needs a backchannel_logout_uri', 'backchannel_logout_session_required');
    }
    return {};
  }
  const uri = changes.backchannelLogoutUri ?? current.backchannelLogoutUri;
  const sessionRequired = changes.backchannelLogoutSessionRequired ?? current.backchannelLogoutSessionRequired ?? false;
  return { ...(uri !== undefined ? { backchannelLogoutUri: uri } : {}), ...(sessionRequired ? { backchannelLogoutSessionRequired: true } : {}) };
}

/** The columns of the metadata added by migrations 018, 022, 023 and 024 (null / 0 when off). */
function storedMetadata(c: Omit<ClientRecord, 'createdAt'>) {
  return {
    token_exchange: c.tokenExchange ? JSON.stringify(c.tokenExchange) : null,
    backchannel_logout_uri: c.backchannelLogoutUri ?? null,
    backchannel_logout_session_required: c.backchannelLogoutSessionRequired ? 1 : 0,
    logo_uri: c.logoUri ?? null,
    first_party: c.firstParty ? 1 : 0,
    response_types: c.responseTypes ? JSON.stringify(c.responseTypes) : null,
    jwks: c.jwks ? JSON.stringify(c.jwks) : null,
    jwks_uri: c.jwksUri ?? null,
    dpop_bound_access_tokens: c.dpopBoundAccessTokens ? 1 : 0,
  };
}

/** The client as oidc-provider's Client model expects it. */
export function toOidcClientMetadata(c: ClientRecord): Record<string, unknown> {
  const grantTypes = c.grantTypes.length ? c.grantTypes : [...DEFAULT_GRANT_TYPES];
  // Optional members assigned, not spread in (see toRecord): this too runs on every token request.
  const metadata: Record<string, unknown> = {
    client_id: c.clientId,
    redirect_uris: [...c.redirectUris],
    post_logout_redirect_uris: [...c.postLogoutRedirectUris],
    grant_types: [...grantTypes],
    response_types: c.responseTypes ? [...c.responseTypes] : grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: c.tokenEndpointAuthMethod,
    client_name: c.name,
    // Custom metadata too: the client's API scope limit as read with it (JSON, `null`: any), so the
    // access policy of the same request need not read the row again (policy/scope-policy.ts).
    api_scope_limit: JSON.stringify(c.allowedScopes ?? null),
  };
  // A secret only for the methods that use it: a private_key_jwt client authenticates with its keys alone.
  const usesSecret = SECRET_AUTH_METHODS.has(c.tokenEndpointAuthMethod);
  if (usesSecret && c.clientSecret !== undefined) metadata.client_secret = c.clientSecret;
  // Custom metadata (provider.ts): accepted by client authentication while its grace period runs
  // (oidc/client-secret-check.ts checks the expiry, epoch ms, again when it compares).
  if (usesSecret && c.previousClientSecret !== undefined && c.previousSecretExpiresAt !== undefined) {
    metadata.previous_client_secret = c.previousClientSecret;
    metadata.previous_client_secret_expires_at_ms = c.previousSecretExpiresAt;
  }
  // Custom metadata (provider.ts extraClientMetadata), kept under this name on oidc-provider's Client.
  if (c.idTokenField) metadata.id_token_field = c.idTokenField;
  if (c.jwks) metadata.jwks = structuredClone(c.jwks);
  if (c.jwksUri) metadata.jwks_uri = c.jwksUri;
  // Custom metadata (provider.ts extraClientMetadata): the consent step skips a first-party client.
  if (c.firstParty) metadata.first_party = true;
  // RFC 9449 §5.2 client metadata, read by oidc-provider's DPoP feature.
  if (c.dpopBoundAccessTokens) metadata.dpop_bound_access_tokens = true;
  // RFC 7591 client metadata oidc-provider knows (client.logoUri): the consent page shows it.
  if (c.logoUri) metadata.logo_uri = c.logoUri;
  // Back-Channel Logout 1.0 §2.2 client metadata, read by oidc-provider's backchannelLogout feature.
  if (c.backchannelLogoutUri) {
    metadata.backchannel_logout_uri = c.backchannelLogoutUri;
    metadata.backchannel_logout_session_required = c.backchannelLogoutSessionRequired === true;
  }
  // oidc-provider refuses http redirect URIs for a web client of the implicit grant (id_token); it
  // takes them on a loopback host from a native one (RFC 8252), as client-store.ts accepts them.
  if (grantTypes.includes('implicit') && [...c.redirectUris, ...c.postLogoutRedirectUris].some((u) => u.startsWith('http:'))) metadata.application_type = 'native';
  return metadata;
}
