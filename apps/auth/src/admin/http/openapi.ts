/**
 * The admin API's OpenAPI 3.1 document, served at GET /admin/v1/openapi.json without a token.
 * Rules:
 * - one paths block per resource (usersPaths, keysPaths, ...; helpers adding a resource add a
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
function operation(scope: AdminScope, spec: { summary: string; operationId: string; parameters?: Json[]; requestBody?: Json; responses: Json }): Json {
  return {
    summary: spec.summary,
    operationId: spec.operationId,
    security: [{ adminToken: [scope] }],
    ...(spec.parameters ? { parameters: spec.parameters } : {}),
    ...(spec.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: spec.requestBody } } } } : {}),
    responses: {
      ...spec.responses,
      '400': problem('Invalid query or body (`validation_failed` with `errors`, `malformed_body`)'),
      '401': problem('No token, or a token that is not valid for the admin API (`invalid_token`)'),
      '403': problem(`The token lacks the scope ${scope} (\`insufficient_scope\`)`),
    },
  };
}

const userId = idParam('id', 'The account id');

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
  },
  '/users/{id}': {
    get: operation('admin:users:read', {
      summary: 'One user, with the second factors enrolled',
      operationId: 'getUser',
      parameters: [userId],
      responses: { '200': json('The user', ref('UserDetails')), '404': problem('No user with this id (`user_not_found`)') },
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
    required: ['id', 'username', 'email', 'name', 'groups', 'disabled', 'disabled_at', 'created_at'],
    properties: {
      id: { type: 'string' },
      username: { type: 'string' },
      email: { type: 'string', format: 'email' },
      name: { type: 'string' },
      groups: { type: 'array', items: { type: 'string' } },
      disabled: { type: 'boolean' },
      disabled_at: { type: ['string', 'null'], format: 'date-time' },
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
  UserPage: {
    type: 'object',
    required: ['items', 'next'],
    properties: { items: { type: 'array', items: ref('User') }, next: { type: ['string', 'null'] } },
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
