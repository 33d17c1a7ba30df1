/**
 * The admin API's OpenAPI 3.1 document, served at GET /admin/v1/openapi.json without a token,
 * built from the routes' declarations (admin-route.ts). Rules:
 * - every route the router serves is an operation, and nothing else is: paths are relative to
 *   the server URL `<issuer>/admin/v1`; each operation names the scope it needs under `security`
 *   (none for a public route);
 * - parameters, request bodies and response bodies are the zod schemas the router validates
 *   with and the handlers answer with (admin/json/), converted by zod's own z.toJSONSchema: the
 *   request side in its input form (defaults, optional members), the response side in its
 *   output form; a schema named in COMPONENTS is referenced, never repeated;
 * - every error is the Problem schema (RFC 9457) with `application/problem+json`; a route with a
 *   scope also answers 400, 401 and 403; the codes a client may see are the `code` enum.
 */
import { z } from 'zod';
import { AUTH_ROUTES } from '@gatehouse/contracts';
import { AuditEventJson, AuditEventPageJson } from '../../audit/audit-json.ts';
import type { AdminScope } from '../../policy/admin-scopes.ts';
import { ClientJson, ClientPageJson, ClientWithSecretJson } from '../json/client-json.ts';
import { IdentityProviderJson, IdentityProviderPageJson } from '../json/identity-provider-json.ts';
import { KeyJson } from '../json/key-json.ts';
import { GrantJson, SessionJson } from '../json/session-json.ts';
import { UserDetailsJson, UserJson, UserPageJson } from '../json/user-json.ts';
import { pathParams, type AdminRouteDeclaration } from './admin-route.ts';
import { ProblemJson } from './problem.ts';

type Json = Record<string, unknown>;

const SCOPE_TEXT: Record<AdminScope, string> = {
  'admin:users:read': 'Read users, their sessions and grants',
  'admin:users:write': 'Create and change users, end their sessions and grants',
  'admin:clients:write': 'Every /clients endpoint, reads included',
  'admin:keys': 'List and rotate signing keys',
  'admin:audit:read': 'Read the audit trail',
  'admin:identity-providers:write': 'Every /identity-providers endpoint, reads included',
};

/** The named schemas, in the document's order. */
const COMPONENTS: ReadonlyArray<readonly [string, z.ZodType]> = [
  ['Problem', ProblemJson],
  ['User', UserJson],
  ['UserDetails', UserDetailsJson],
  ['Session', SessionJson],
  ['Grant', GrantJson],
  ['SigningKey', KeyJson],
  ['UserPage', UserPageJson],
  ['AuditEvent', AuditEventJson],
  ['AuditEventPage', AuditEventPageJson],
  ['Client', ClientJson],
  ['ClientWithSecret', ClientWithSecretJson],
  ['ClientPage', ClientPageJson],
  ['IdentityProvider', IdentityProviderJson],
  ['IdentityProviderPage', IdentityProviderPageJson],
];
const COMPONENT_NAMES = new Map<unknown, string>(COMPONENTS.map(([name, schema]) => [schema, name]));

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A zod schema as an OpenAPI 3.1 schema (JSON Schema 2020-12), named components as references. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', self?: z.ZodType): Json {
  const top = COMPONENT_NAMES.get(schema);
  if (top !== undefined && schema !== self) return ref(top);
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    override({ zodSchema, jsonSchema }) {
      // z.number().int() bounds itself to the safe integers: that is JSON's, not a rule of ours.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      const name = COMPONENT_NAMES.get(zodSchema);
      if (name === undefined || (zodSchema as unknown) === self) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
      Object.assign(jsonSchema, ref(name));
    },
  }) as Json;
  return json;
}

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('Problem') } } });

/** A query schema's members as query parameters (their descriptions lifted to the parameter). */
function queryParameters(query: z.ZodType): Json[] {
  const json = schemaOf(query, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    ...(json.required?.includes(name) ? { required: true } : {}),
    schema,
    ...(description !== undefined ? { description } : {}),
  }));
}

function operation(route: AdminRouteDeclaration): Json {
  const parameters = [
    ...pathParams(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' }, description: route.params![name] })),
    ...(route.query ? queryParameters(route.query) : []),
  ];
  const responses: Json = {};
  for (const [status, answer] of Object.entries(route.responses)) {
    responses[status] = {
      description: answer.description,
      ...(answer.headers ? { headers: Object.fromEntries(Object.entries(answer.headers).map(([name, description]) => [name, { schema: { type: 'string' }, description }])) } : {}),
      ...(answer.body ? { content: { 'application/json': { schema: schemaOf(answer.body, 'output') } } } : {}),
    };
  }
  for (const [status, description] of Object.entries(route.problems ?? {})) responses[status] = problem(description);
  if (route.scope !== null) {
    responses['400'] = problem('Invalid query or body (`validation_failed` with `errors`, `malformed_body`)');
    responses['401'] = problem('No token, or a token that is not valid for the admin API (`invalid_token`)');
    responses['403'] = problem(`The token lacks the scope ${route.scope} (\`insufficient_scope\`)`);
  }
  return {
    summary: route.summary,
    operationId: route.operationId,
    security: route.scope === null ? [] : [{ adminToken: [route.scope] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: !route.body.safeParse(undefined).success, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } } }
      : {}),
    responses,
  };
}

export function adminOpenApi(issuer: string, routes: readonly AdminRouteDeclaration[]): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse admin API',
      version: '1',
      description: 'Operator access to users, clients, upstream identity providers, keys and the audit trail. Tokens come from this server (client_credentials, or an admin user\'s code flow) with the admin scopes.',
    },
    servers: [{ url: `${issuer}/admin/v1` }],
    paths,
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
      schemas: Object.fromEntries(COMPONENTS.map(([name, schema]) => [name, schemaOf(schema, 'output', schema)])),
    },
  };
}
