/**
 * The admin API's OpenAPI 3.1 document, served at GET /admin/v1/openapi.json without a token.
 * Rules:
 * - one paths block per resource (usersPaths, keysPaths, auditPaths, ...; helpers adding a resource add a
 *   block and spread it into `paths`); paths are relative to the server URL `<issuer>/admin/v1`;
 * - every route of the router is documented and nothing else (test/admin/openapi.test.ts
 *   compares the two), each operation naming the scope it needs under `security`;
 * - every error is the Problem schema (RFC 9457) with `application/problem+json`; the codes a
 *   client may see are listed in the schema's `code` enum (problem.ts).
 */
import { AUTH_ROUTES } from '@gatehouse/contracts';
import type { AdminScope } from '../../policy/admin-scopes.ts';
import { ADMIN_PROBLEM_CODES } from './problem.ts';

type Json = Record<string, unknown>;

const SCOPE_TEXT: Record<AdminScope, string> = {
  'admin:users:read': 'Read users, their sessions and grants',
  'admin:users:write': 'Create and change users, end their sessions and grants',
  'admin:clients:write': 'Every /clients endpoint, reads included',
  'admin:keys': 'List and rotate signing keys',
  'admin:audit:read': 'Read the audit trail',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });
const json = (description: string, schema: Json) => ({ description, content: { 'application/json': { schema } } });
const idParam = (name: string, description: string) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description });

/** An operation needing `scope`, with the problems every protected route can answer. */
function operation(scope: AdminScope, spec: { summary: string; operationId: string; parameters?: Json[]; requestBody?: Json; bodyOptional?: boolean; responses: Json }): Json {
  return {
    summary: spec.summary,
    operationId: spec.operationId,
    security: [{ adminToken: [scope] }],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: { required: !spec.bodyOptional, content: { 'application/json': { schema: spec.requestBody } } } } : {}),
    responses: {
      ...spec.responses,
      '400': problem('Invalid query or body (`validation_failed` with `errors`, `malformed_body`)'),
      '401': problem('No token, or a token that is not valid for the admin API (`invalid_token`)'),
      '403': problem(`The token lacks the scope ${scope} (\`insufficient_scope\`)`),
    },
  };
}

const userId = idParam('id', 'The account id');

const notFound = problem('No user with this id (`user_not_found`)');
const userDetails = json('The user', ref('UserDetails'));
const userWrite = (summary: string, operationId: string, extra: { requestBody?: Json; responses?: Json } = {}) => ({
  post: operation('admin:users:write', {
    summary,
    operationId,
    parameters: [userId],
    ...(extra.requestBody ? { requestBody: extra.requestBody } : {}),
    responses: { ...(extra.responses ?? { '200': userDetails }), '404': notFound },
  }),
});
const passwordRefused = problem('The password policy refused the password (`password_empty`, `password_too_short`, `password_too_long`, `password_common`)');

const usersPaths: Json = {
  '/users': {
    get: operation('admin:users:read', {
      summary: 'List users by username, with search and keyset paging',
      operationId: 'listUsers',
      parameters: [
        { name: 'q', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 254 }, description: 'A substring of the username or email, any case' },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'after', in: 'query', schema: { type: 'string' }, description: 'The `next` cursor of the previous page' },
      ],
      responses: { '200': json('One page of users', ref('UserPage')) },
    }),
    post: operation('admin:users:write', {
      summary: 'Create a user (without a password it cannot sign in until one is set)',
      operationId: 'createUser',
      requestBody: {
        type: 'object',
        additionalProperties: false,
        required: ['username', 'email', 'name'],
        properties: {
          username: { type: 'string', pattern: '^[a-zA-Z0-9._@-]{1,64}$' },
          email: { type: 'string', format: 'email', maxLength: 254 },
          name: { type: 'string', minLength: 1, maxLength: 128 },
          groups: { type: 'array', items: { type: 'string' }, maxItems: 64, default: [] },
          password: { type: 'string', minLength: 12, maxLength: 128 },
        },
      },
      responses: {
        '201': { ...userDetails, headers: { Location: { schema: { type: 'string' }, description: 'The new user' } } },
        '409': problem('The username is taken (`duplicate_username`)'),
        '422': passwordRefused,
      },
    }),
  },
  '/users/{id}': {
    get: operation('admin:users:read', {
      summary: 'One user, with the second factors enrolled',
      operationId: 'getUser',
      parameters: [userId],
      responses: { '200': userDetails, '404': notFound },
    }),
    patch: operation('admin:users:write', {
      summary: 'Change the email, name or groups',
      operationId: 'updateUser',
      parameters: [userId],
      requestBody: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          email: { type: 'string', format: 'email', maxLength: 254 },
          name: { type: 'string', minLength: 1, maxLength: 128 },
          groups: { type: 'array', items: { type: 'string' }, maxItems: 64 },
        },
      },
      responses: { '200': userDetails, '404': notFound },
    }),
    delete: operation('admin:users:write', {
      summary: 'Remove the user and their data; every session, grant, refresh and access token of theirs ends at once',
      operationId: 'removeUser',
      parameters: [userId],
      responses: { '204': { description: 'Removed' }, '404': notFound },
    }),
  },
  '/users/{id}/disable': userWrite('Disable: no more sign-ins; every session, grant, refresh and access token of the user ends at once', 'disableUser'),
  '/users/{id}/enable': userWrite('Enable a disabled user: sign-in is allowed again; no earlier session comes back', 'enableUser'),
  '/users/{id}/unlock': userWrite('End the lockouts of the password and second-factor steps', 'unlockUser', {
    responses: { '200': json('How many recorded failures were cleared', { type: 'object', required: ['cleared'], properties: { cleared: { type: 'integer' } } }) },
  }),
  '/users/{id}/password': userWrite('Set a new password; ends the lockouts and every session, grant and refresh token of the user', 'setUserPassword', {
    requestBody: { type: 'object', additionalProperties: false, required: ['password'], properties: { password: { type: 'string', minLength: 12, maxLength: 128 } } },
    responses: { '204': { description: 'Set' }, '422': passwordRefused },
  }),
  '/users/{id}/password-reset': userWrite('Issue a one-time password-reset link (1 hour, single use, replaces the previous link); the link is in this answer only', 'issuePasswordReset', {
    responses: {
      '201': json('The link, to hand to the user (Gatehouse sends no mail)', {
        type: 'object',
        required: ['url', 'expires_at'],
        properties: { url: { type: 'string', format: 'uri' }, expires_at: { type: 'string', format: 'date-time' } },
      }),
      '409': problem('The user is disabled (`user_disabled`)'),
    },
  }),
  '/users/{id}/second-factors/reset': userWrite('Remove the TOTP secret, authenticator devices, passkeys and recovery codes; ends every session, grant and refresh token of the user', 'resetSecondFactors', {
    responses: {
      '200': json('What was removed', {
        type: 'object',
        required: ['removed'],
        properties: {
          removed: {
            type: 'object',
            required: ['totp', 'devices', 'passkeys', 'recovery_codes'],
            properties: { totp: { type: 'boolean' }, devices: { type: 'integer' }, passkeys: { type: 'integer' }, recovery_codes: { type: 'integer' } },
          },
        },
      }),
    },
  }),
  '/users/{id}/sessions': {
    get: operation('admin:users:read', {
      summary: 'The user\'s SSO sessions (without their ids), most recently used first',
      operationId: 'listUserSessions',
      parameters: [userId],
      responses: { '200': json('The sessions', { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('Session') } } }), '404': notFound },
    }),
  },
  '/users/{id}/signout-all': userWrite('Sign out everywhere: end every session and grant (refresh tokens answer invalid_grant)', 'signOutEverywhere', {
    responses: {
      '200': json('How many sessions and grants ended', { type: 'object', required: ['sessions', 'grants'], properties: { sessions: { type: 'integer' }, grants: { type: 'integer' } } }),
    },
  }),
  '/users/{id}/grants': {
    get: operation('admin:users:read', {
      summary: 'The user\'s grants (one per client signed in to), newest first',
      operationId: 'listUserGrants',
      parameters: [userId],
      responses: { '200': json('The grants', { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('Grant') } } }), '404': notFound },
    }),
  },
  '/users/{id}/grants/{grantId}': {
    delete: operation('admin:users:write', {
      summary: 'Revoke one grant: its refresh tokens answer invalid_grant, its access tokens are inactive',
      operationId: 'revokeUserGrant',
      parameters: [userId, idParam('grantId', 'The grant id')],
      responses: { '204': { description: 'Revoked' }, '404': problem('No user with this id (`user_not_found`), or no such grant of the user (`grant_not_found`)') },
    }),
  },
};

const keysPaths: Json = {
  '/keys': {
    get: operation('admin:keys', {
      summary: 'The signing keys with their state and dates (never key material)',
      operationId: 'listKeys',
      responses: { '200': json('The keys, signing key first', { type: 'object', required: ['items'], properties: { items: { type: 'array', items: ref('SigningKey') } } }) },
    }),
  },
  '/keys/rotate': {
    post: operation('admin:keys', {
      summary: 'A new key signs at once; the previous one stays published until its tokens expire',
      operationId: 'rotateKeys',
      responses: {
        '200': json('The new key and the retired ones', {
          type: 'object',
          required: ['kid', 'retired', 'retired_expire_at', 'discarded'],
          properties: {
            kid: { type: 'string' },
            retired: { type: 'array', items: { type: 'string' } },
            retired_expire_at: { type: ['string', 'null'], format: 'date-time' },
            discarded: { type: 'array', items: { type: 'string' }, description: 'Pending keys dropped (they never signed)' },
          },
        }),
      },
    }),
  },
};

const auditPaths: Json = {
  '/audit-events': {
    get: operation('admin:audit:read', {
      summary: 'The stored audit trail, newest first, with filters and keyset paging (as `authctl audit`)',
      operationId: 'listAuditEvents',
      parameters: [
        { name: 'user', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 256 }, description: 'A username: the account\'s events and the events naming that typed username (failed logins)' },
        { name: 'client', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 256 }, description: 'A client id' },
        { name: 'event', in: 'query', schema: { type: 'string', minLength: 1, maxLength: 100 }, description: 'An event name (`login.password.failure`), or a prefix ending in `.` (`login.`)' },
        { name: 'since', in: 'query', schema: { type: 'string' }, description: 'Inclusive: ISO 8601 with a zone (`2026-11-23T10:00:00Z`, `2026-11-23`) or a duration back from now (`30m`, `24h`, `7d`)' },
        { name: 'until', in: 'query', schema: { type: 'string' }, description: 'Exclusive, as `since`; must be later than `since`' },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'after', in: 'query', schema: { type: 'string' }, description: 'The `next` cursor of the previous page' },
      ],
      responses: { '200': json('One page of audit events', ref('AuditEventPage')) },
    }),
  },
};

const clientId = idParam('id', 'The client id');
const clientNotFound = problem('No client with this id (`client_not_found`)');
const clientBody = json('The client (never its secret)', ref('Client'));
const uriList = { type: 'array', items: { type: 'string', format: 'uri', maxLength: 2048 }, maxItems: 32 };
const grantList = { type: 'array', items: { type: 'string', enum: ['authorization_code', 'refresh_token', 'client_credentials', 'implicit'] }, minItems: 1, maxItems: 8 };
const responseTypeList = {
  type: 'array',
  items: { type: 'string', enum: ['code', 'id_token'] },
  minItems: 1,
  maxItems: 2,
  description: '`code` needs the authorization_code grant; `id_token` (an ID token at the authorization endpoint, no access token) comes with the implicit grant. Default: `code` with authorization_code',
};
const authMethod = {
  type: 'string',
  enum: ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'],
  description: 'The only method the client may authenticate with; private_key_jwt needs exactly one of `jwks` and `jwks_uri`, and has no secret',
};
const clientMetadata = {
  jwks: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } }, description: 'private_key_jwt: a JWK Set of public RSA, EC or OKP keys (a private or symmetric member is refused)' },
  jwks_uri: { type: 'string', maxLength: 2048, description: 'private_key_jwt: where the client serves its JWK Set; https, or http on localhost / 127.0.0.1' },
  first_party: { type: 'boolean', description: 'The operator\'s own client: no consent page unless the request sends prompt=consent' },
  dpop_bound_access_tokens: { type: 'boolean', description: 'RFC 9449: every access token of the client must be DPoP-bound' },
  logo_uri: { type: 'string', format: 'uri', maxLength: 2048, description: 'RFC 7591: the client\'s logo, shown beside its name on the consent page; https, or http on localhost / 127.0.0.1; no fragment or credentials' },
};

const clientsPaths: Json = {
  '/clients': {
    get: operation('admin:clients:write', {
      summary: 'List clients by client id, with keyset paging (never their secrets)',
      operationId: 'listClients',
      parameters: [
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 200, default: 50 } },
        { name: 'after', in: 'query', schema: { type: 'string' }, description: 'The `next` cursor of the previous page' },
      ],
      responses: { '200': json('One page of clients', ref('ClientPage')) },
    }),
    post: operation('admin:clients:write', {
      summary: 'Register a client; a confidential client\'s secret is in this answer only',
      operationId: 'createClient',
      requestBody: {
        type: 'object',
        additionalProperties: false,
        required: ['client_id'],
        properties: {
          client_id: { type: 'string', pattern: '^[a-zA-Z0-9._-]{1,128}$' },
          redirect_uris: { ...uriList, default: [], description: 'Required for the authorization_code grant: https, or http on localhost / 127.0.0.1; no fragment or credentials' },
          post_logout_redirect_uris: { ...uriList, default: [] },
          public: { type: 'boolean', default: false, description: 'A public client has no secret, authenticates with `none` (PKCE) and cannot use client_credentials' },
          token_endpoint_auth_method: { ...authMethod, default: 'client_secret_basic' },
          grant_types: { ...grantList, default: ['authorization_code', 'refresh_token'] },
          response_types: responseTypeList,
          name: { type: 'string', minLength: 1, maxLength: 128, description: 'Defaults to the client id' },
          jwks: clientMetadata.jwks,
          jwks_uri: clientMetadata.jwks_uri,
          first_party: { ...clientMetadata.first_party, default: false },
          dpop_bound_access_tokens: { ...clientMetadata.dpop_bound_access_tokens, default: false },
          logo_uri: clientMetadata.logo_uri,
          id_token_field: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_]{0,63}$', description: 'An extra token-response member repeating the ID token (e.g. JWT_token)' },
        },
      },
      responses: {
        '201': {
          ...json('The client, with its secret (confidential clients) shown this once', ref('ClientWithSecret')),
          headers: { Location: { schema: { type: 'string' }, description: 'The new client' } },
        },
        '409': problem('The client id is taken (`duplicate_client`)'),
      },
    }),
  },
  '/clients/{id}': {
    get: operation('admin:clients:write', {
      summary: 'One client (never its secret)',
      operationId: 'getClient',
      parameters: [clientId],
      responses: { '200': clientBody, '404': clientNotFound },
    }),
    patch: operation('admin:clients:write', {
      summary: 'Change the registration; each field given replaces the stored one (new keys replace the old, another auth method drops them)',
      operationId: 'updateClient',
      parameters: [clientId],
      requestBody: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          redirect_uris: uriList,
          post_logout_redirect_uris: uriList,
          grant_types: grantList,
          name: { type: 'string', minLength: 1, maxLength: 128 },
          response_types: responseTypeList,
          token_endpoint_auth_method: authMethod,
          ...clientMetadata,
          logo_uri: { ...clientMetadata.logo_uri, type: ['string', 'null'], description: `${clientMetadata.logo_uri.description}; null removes it` },
        },
      },
      responses: { '200': clientBody, '404': clientNotFound },
    }),
    delete: operation('admin:clients:write', {
      summary: 'Remove the client: its tokens stop being active and its secrets stop working at once',
      operationId: 'removeClient',
      parameters: [clientId],
      responses: { '204': { description: 'Removed' }, '404': clientNotFound },
    }),
  },
  '/clients/{id}/secret/rotate': {
    post: operation('admin:clients:write', {
      summary: 'A new secret, in this answer only; the replaced one keeps working for the grace period (a rotation during a grace period ends the older secret at once)',
      operationId: 'rotateClientSecret',
      parameters: [clientId],
      bodyOptional: true,
      requestBody: {
        type: 'object',
        additionalProperties: false,
        properties: {
          grace_seconds: { type: 'integer', minimum: 0, maximum: 2_592_000, default: 86_400, description: 'How long the replaced secret keeps working; 0 ends it at once' },
        },
      },
      responses: {
        '200': json('The client with its new secret; `previous_secret_expires_at` says when the old one stops (null with grace 0)', ref('ClientWithSecret')),
        '404': clientNotFound,
        '409': problem('A public client has no secret (`public_client`)'),
      },
    }),
  },
};

const schemas: Json = {
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details',
    required: ['type', 'title', 'status', 'code'],
    properties: {
      type: { type: 'string', description: '`urn:gatehouse:admin:problem:<code>`' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      instance: { type: 'string' },
      code: { type: 'string', enum: [...ADMIN_PROBLEM_CODES] },
      errors: {
        type: 'array',
        items: { type: 'object', required: ['field', 'message'], properties: { field: { type: 'string' }, message: { type: 'string' } } },
      },
    },
  },
  User: {
    type: 'object',
    required: ['id', 'username', 'email', 'name', 'groups', 'disabled', 'disabled_at', 'locked', 'locked_until', 'created_at'],
    properties: {
      id: { type: 'string' },
      username: { type: 'string' },
      email: { type: 'string', format: 'email' },
      name: { type: 'string' },
      groups: { type: 'array', items: { type: 'string' } },
      disabled: { type: 'boolean' },
      disabled_at: { type: ['string', 'null'], format: 'date-time' },
      locked: { type: 'boolean', description: 'Brute-force regulation locks the account out now (its password step or second factor); POST /users/{id}/unlock ends it' },
      locked_until: { type: ['string', 'null'], format: 'date-time', description: 'When that lock ends; null when the account is not locked' },
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  UserDetails: {
    allOf: [
      ref('User'),
      {
        type: 'object',
        required: ['second_factors'],
        properties: {
          second_factors: {
            type: 'object',
            required: ['totp', 'devices', 'passkeys', 'recovery_codes_left'],
            properties: {
              totp: { type: 'boolean' },
              devices: { type: 'integer', description: 'Authenticator devices (push)' },
              passkeys: { type: 'integer' },
              recovery_codes_left: { type: 'integer' },
            },
          },
        },
      },
    ],
  },
  Session: {
    type: 'object',
    required: ['signed_in_at', 'last_used_at', 'expires_at', 'clients'],
    properties: {
      signed_in_at: { type: ['string', 'null'], format: 'date-time' },
      last_used_at: { type: ['string', 'null'], format: 'date-time' },
      expires_at: { type: ['string', 'null'], format: 'date-time' },
      clients: {
        type: 'array',
        items: { type: 'object', required: ['client_id', 'grant_id'], properties: { client_id: { type: 'string' }, grant_id: { type: ['string', 'null'] } } },
      },
    },
  },
  Grant: {
    type: 'object',
    required: ['id', 'client_id', 'openid_scopes', 'resources', 'created_at', 'expires_at'],
    properties: {
      id: { type: 'string' },
      client_id: { type: 'string' },
      openid_scopes: { type: 'array', items: { type: 'string' } },
      resources: {
        type: 'array',
        items: { type: 'object', required: ['resource', 'scopes'], properties: { resource: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } } } },
      },
      created_at: { type: ['string', 'null'], format: 'date-time' },
      expires_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  SigningKey: {
    type: 'object',
    required: ['kid', 'alg', 'state', 'created_at', 'activates_at', 'retired_at', 'expires_at'],
    properties: {
      kid: { type: 'string' },
      alg: { type: 'string', enum: ['RS256'] },
      state: { type: 'string', enum: ['pending', 'active', 'retired', 'expired'] },
      created_at: { type: 'string', format: 'date-time' },
      activates_at: { type: 'string', format: 'date-time' },
      retired_at: { type: ['string', 'null'], format: 'date-time' },
      expires_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  UserPage: {
    type: 'object',
    required: ['items', 'next'],
    properties: { items: { type: 'array', items: ref('User') }, next: { type: ['string', 'null'] } },
  },
  AuditEvent: {
    type: 'object',
    required: ['id', 'occurred_at', 'event', 'account_id', 'username', 'client_id', 'actor_kind', 'actor', 'ip', 'request_id', 'fields'],
    properties: {
      id: { type: 'string', description: 'A growing sequence number' },
      occurred_at: { type: 'string', format: 'date-time' },
      event: { type: 'string', description: 'The stable event name, e.g. `login.password.failure`, `admin.user.disabled`' },
      account_id: { type: ['string', 'null'] },
      username: { type: ['string', 'null'], description: 'The name typed at a login step (lower-cased), for events that may name no account' },
      client_id: { type: ['string', 'null'] },
      actor_kind: { type: ['string', 'null'], enum: ['operator', 'client', 'account', null], description: 'Who made an administrative change' },
      actor: { type: ['string', 'null'] },
      ip: { type: ['string', 'null'] },
      request_id: { type: ['string', 'null'], description: 'The request that caused the event (X-Request-Id, as nginx logs it); null for authctl' },
      fields: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] }, description: 'The event\'s other fields: identifiers and flags, never credentials' },
    },
  },
  AuditEventPage: {
    type: 'object',
    required: ['items', 'next'],
    properties: { items: { type: 'array', items: ref('AuditEvent') }, next: { type: ['string', 'null'] } },
  },
  Client: {
    type: 'object',
    required: [
      'client_id', 'name', 'public', 'token_endpoint_auth_method', 'grant_types', 'response_types', 'redirect_uris', 'post_logout_redirect_uris',
      'first_party', 'dpop_bound_access_tokens', 'jwks', 'jwks_uri', 'logo_uri', 'id_token_field', 'created_at', 'updated_at', 'secret_rotated_at', 'previous_secret_expires_at',
    ],
    properties: {
      client_id: { type: 'string' },
      name: { type: 'string' },
      public: { type: 'boolean' },
      token_endpoint_auth_method: { type: 'string', enum: ['client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none'] },
      grant_types: { type: 'array', items: { type: 'string' } },
      response_types: { type: 'array', items: { type: 'string', enum: ['code', 'id_token'] } },
      redirect_uris: { type: 'array', items: { type: 'string' } },
      post_logout_redirect_uris: { type: 'array', items: { type: 'string' } },
      first_party: clientMetadata.first_party,
      dpop_bound_access_tokens: clientMetadata.dpop_bound_access_tokens,
      jwks: { ...clientMetadata.jwks, type: ['object', 'null'] },
      jwks_uri: { ...clientMetadata.jwks_uri, type: ['string', 'null'] },
      logo_uri: { ...clientMetadata.logo_uri, type: ['string', 'null'] },
      id_token_field: { type: ['string', 'null'] },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: ['string', 'null'], format: 'date-time' },
      secret_rotated_at: { type: ['string', 'null'], format: 'date-time' },
      previous_secret_expires_at: { type: ['string', 'null'], format: 'date-time', description: 'While a rotation\'s grace period runs: when the replaced secret stops working' },
    },
  },
  ClientWithSecret: {
    allOf: [ref('Client'), { type: 'object', properties: { client_secret: { type: 'string', description: 'Shown once; absent for a public or a private_key_jwt client' } } }],
  },
  ClientPage: {
    type: 'object',
    required: ['items', 'next'],
    properties: { items: { type: 'array', items: ref('Client') }, next: { type: ['string', 'null'] } },
  },
};

export function adminOpenApi(issuer: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse admin API',
      version: '1',
      description: 'Operator access to users, clients, keys and the audit trail. Tokens come from this server (client_credentials, or an admin user\'s code flow) with the admin scopes.',
    },
    servers: [{ url: `${issuer}/admin/v1` }],
    paths: {
      '/openapi.json': {
        get: { summary: 'This document', operationId: 'openapi', security: [], responses: { '200': json('The OpenAPI document', { type: 'object' }) } },
      },
      ...usersPaths,
      ...keysPaths,
      ...auditPaths,
      ...clientsPaths,
    },
    components: {
      securitySchemes: {
        adminToken: {
          type: 'oauth2',
          description: `An RFC 9068 JWT access token of this server whose audience is ${issuer}/admin/v1, sent as \`Authorization: Bearer\`.`,
          flows: {
            clientCredentials: { tokenUrl: `${issuer}${AUTH_ROUTES.token}`, scopes: SCOPE_TEXT },
            authorizationCode: { authorizationUrl: `${issuer}${AUTH_ROUTES.authorize}`, tokenUrl: `${issuer}${AUTH_ROUTES.token}`, scopes: SCOPE_TEXT },
          },
        },
      },
      schemas,
    },
  };
}
