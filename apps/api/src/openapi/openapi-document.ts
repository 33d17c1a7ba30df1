/**
 * The OpenAPI 3.1 description of the API, generated from the collection file: one path pair
 * per collection (list/create, read/replace/remove), the item schema from its declared fields,
 * every version and how to ask for it, the paging parameters, problem details (and the
 * `/problems/<code>` pages their `type` names), and the OAuth 2.0
 * bearer security scheme with the collection scopes. Paths are listed in the `/api/v<n>/…`
 * form per version and in the unversioned `/api/…` form (which takes a header, query or media type).
 */
import type { ApiDefinition, CollectionSpec, FieldSpec } from '../collections/collection-config.ts';
import { MAX_ID } from '../collections/item-validator.ts';
import { API_ROUTES, AUTH_ROUTES } from '@gatehouse/contracts';
import { ERROR_CODES } from '../errors/api-error.ts';
import { formatVersion } from '../versioning/resolve-version.ts';

function fieldSchema(spec: FieldSpec): Record<string, unknown> {
  const description = spec.description === undefined ? {} : { description: spec.description };
  switch (spec.type) {
    case 'string':
      return { type: 'string', ...description, minLength: spec.minLength, maxLength: spec.maxLength, pattern: spec.pattern };
    case 'integer':
    case 'number':
      return { type: spec.type, ...description, minimum: spec.minimum, maximum: spec.maximum };
    case 'boolean':
      return { type: 'boolean', ...description };
  }
}

function itemSchema(collection: CollectionSpec): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id', ...Object.entries(collection.fields).filter(([, f]) => f.required).map(([n]) => n)],
    properties: {
      id: { type: 'integer', minimum: 1, maximum: MAX_ID },
      ...Object.fromEntries(Object.entries(collection.fields).map(([name, spec]) => [name, JSON.parse(JSON.stringify(fieldSchema(spec)))])),
    },
  };
}

const problem = (description: string) => ({
  description,
  content: {
    'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
    'application/problem+xml': { schema: { type: 'string' } },
    'text/html': { schema: { type: 'string' } },
  },
});

export function buildOpenApiDocument(definition: ApiDefinition, options: { issuer: string; audience: string; serverUrl: string }): Record<string, unknown> {
  const versions = definition.versions.map((v) => formatVersion(v.version));
  const paths: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {
    Problem: {
      type: 'object',
      required: ['type', 'title', 'status', 'code'],
      properties: {
        type: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        instance: { type: 'string' },
        code: { type: 'string' },
        requestId: { type: 'string' },
        errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
      },
    },
  };
  const versionParameters = [
    { name: 'API-Version', in: 'header', required: false, schema: { type: 'string', enum: versions }, description: 'Version, when the path names none' },
    { name: 'version', in: 'query', required: false, schema: { type: 'string', enum: definition.versions.map((v) => String(v.version)) } },
  ];
  const pagingParameters = [
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: definition.paging.maxLimit, default: definition.paging.defaultLimit } },
    { name: 'after', in: 'query', required: false, schema: { type: 'integer', minimum: 0 }, description: 'Id of the last item of the previous page' },
  ];
  const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: MAX_ID } };
  const errors = {
    '400': problem('Invalid request, field, paging parameter or version'),
    '401': problem('Missing, invalid or expired access token'),
    '403': problem('The access token lacks the scope'),
    '406': problem('No acceptable representation'),
  };

  for (const collection of definition.collections.values()) {
    const name = collection.name;
    const Item = `${name}.item`;
    schemas[Item] = itemSchema(collection);
    schemas[`${name}.page`] = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { $ref: `#/components/schemas/${Item}` } },
        page: { type: 'object', properties: { limit: { type: 'integer' }, next: { type: ['string', 'null'], format: 'uri' } } },
      },
    };
    const ref = { $ref: `#/components/schemas/${Item}` };
    const read = [{ bearer: [collection.readScope] }];
    const write = [{ bearer: [collection.writeScope] }];
    for (const prefix of ['/api', ...versions.map((v) => `/api/${v}`)]) {
      const versioned = prefix !== '/api';
      const v = versioned ? prefix.slice('/api/'.length) : undefined;
      const listBody =
        v === undefined ? { oneOf: [{ type: 'array', items: ref }, { $ref: `#/components/schemas/${name}.page` }] } : v === 'v1' ? { type: 'array', items: ref } : { $ref: `#/components/schemas/${name}.page` };
      const oneBody = v === undefined ? { oneOf: [{ type: 'array', items: ref, minItems: 1, maxItems: 1 }, ref] } : v === 'v1' ? { type: 'array', items: ref, minItems: 1, maxItems: 1 } : ref;
      const parameters = versioned ? [] : versionParameters;
      const content = (schema: unknown) => ({ 'application/json': { schema }, 'application/xml': { schema: { type: 'string' } }, 'text/html': { schema: { type: 'string' } } });
      paths[`${prefix}/${name}`] = {
        parameters,
        get: {
          operationId: `list_${name}${v ? `_${v}` : ''}`,
          summary: `List ${name}`,
          security: read,
          parameters: pagingParameters,
          responses: { '200': { description: `A page of ${name}; Link rel="next" when there are more`, content: content(listBody) }, ...errors },
        },
        post: {
          operationId: `create_${name}${v ? `_${v}` : ''}`,
          summary: `Add an item to ${name}`,
          security: write,
          requestBody: { required: true, content: { 'application/json': { schema: ref } } },
          responses: {
            '201': { description: 'Created; Location names the item', content: content(ref) },
            ...errors,
            '409': problem('An item with this id exists'),
            '413': problem('Body too large'),
            '415': problem('Body is not JSON'),
          },
        },
      };
      paths[`${prefix}/${name}/{id}`] = {
        parameters: [idParameter, ...parameters],
        get: {
          operationId: `read_${name}${v ? `_${v}` : ''}`,
          summary: `Read one of ${name}`,
          security: read,
          responses: { '200': { description: 'The item (v1: an array holding it)', content: content(oneBody) }, ...errors, '404': problem('No such item') },
        },
        put: {
          operationId: `replace_${name}${v ? `_${v}` : ''}`,
          summary: `Replace one of ${name}`,
          security: write,
          requestBody: { required: true, content: { 'application/json': { schema: ref } } },
          responses: { '200': { description: 'The stored item', content: content(ref) }, ...errors, '404': problem('No such item'), '413': problem('Body too large'), '415': problem('Body is not JSON') },
        },
        delete: {
          operationId: `remove_${name}${v ? `_${v}` : ''}`,
          summary: `Remove one of ${name}`,
          security: write,
          responses: { '204': { description: 'Removed' }, ...errors, '404': problem('No such item') },
        },
      };
    }
  }

  // The documentation every problem `type` points at: public, HTML by default, JSON on request.
  const problemDescription = {
    type: 'object',
    required: ['type', 'code', 'status', 'title', 'meaning', 'action'],
    properties: {
      type: { type: 'string', format: 'uri' },
      code: { type: 'string', enum: [...ERROR_CODES] },
      status: { type: 'integer' },
      title: { type: 'string' },
      meaning: { type: 'string' },
      action: { type: 'string' },
    },
  };
  schemas.ProblemDescription = problemDescription;
  paths[API_ROUTES.problems] = {
    get: {
      summary: 'List the problem codes of this API',
      security: [],
      responses: {
        '200': {
          description: 'Every problem code with its status, title and type URI',
          content: {
            'text/html': { schema: { type: 'string' } },
            'application/json': {
              schema: { type: 'object', properties: { problems: { type: 'array', items: { type: 'object', properties: { code: { type: 'string' }, status: { type: 'integer' }, title: { type: 'string' }, type: { type: 'string', format: 'uri' } } } } } },
            },
          },
        },
        '406': problem('Neither HTML nor JSON is acceptable'),
      },
    },
  };
  paths[`${API_ROUTES.problems}/{code}`] = {
    get: {
      summary: 'Describe a problem code: the resource a problem document\'s type names',
      security: [],
      parameters: [{ name: 'code', in: 'path', required: true, schema: { type: 'string', enum: [...ERROR_CODES] } }],
      responses: {
        '200': {
          description: 'What the code means and what to do',
          content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: { $ref: '#/components/schemas/ProblemDescription' } } },
        },
        '404': problem('No problem code of this name'),
        '406': problem('Neither HTML nor JSON is acceptable'),
      },
    },
  };

  const scopes = Object.fromEntries(
    [...definition.collections.values()].flatMap((c) => [
      [c.readScope, `Read ${c.name}`],
      [c.writeScope, `Create, replace and remove ${c.name}`],
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse API',
      version: versions.at(-1),
      description:
        `Versions: ${versions.join(', ')} (default ${versions[0]}). Ask for one by path (/api/v<n>/…, /v<n>/…, /rest/api/<n>/…), ` +
        'header API-Version: v<n>, query ?version=<n>, or Accept: application/vnd.gatehouse.v<n>+json|+xml. ' +
        `Deprecated: ${definition.versions.filter((v) => v.deprecated).map((v) => formatVersion(v.version)).join(', ') || 'none'}.`,
    },
    servers: [{ url: options.serverUrl }],
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'oauth2',
          description: `Access token from ${options.issuer} for audience ${options.audience}, sent as Authorization: Bearer, or as Authorization: DPoP with a DPoP proof header when it is bound to a key (RFC 9449)`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${options.issuer}${AUTH_ROUTES.authorize}`,
              tokenUrl: `${options.issuer}${AUTH_ROUTES.token}`,
              scopes,
            },
          },
        },
      },
    },
    'x-versions': definition.versions.map((v) => ({
      version: formatVersion(v.version),
      deprecated: v.deprecated ? { since: v.deprecated.since.toISOString(), sunset: v.deprecated.sunset?.toISOString(), link: v.deprecated.link } : false,
    })),
  };
}
