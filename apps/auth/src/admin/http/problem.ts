/**
 * The admin API's errors: RFC 9457 problem details (`application/problem+json`). Rules:
 * - every answer that is not a success is an AdminProblem with a stable `code` (clients switch
 *   on it); `type` is `urn:gatehouse:admin:problem:<code>`, `title` the status's reason phrase,
 *   `detail` a sentence for people, `errors` the field errors of a validation failure;
 * - problems never carry a stack, an SQL text or a secret; an unexpected failure is a generic
 *   500 `server_error` naming the request id (the stack goes to the log only, admin-router.ts);
 * - the codes of the admin API are listed in ADMIN_PROBLEM_CODES (the OpenAPI document names
 *   them); helpers of other resources add theirs there.
 */
import { STATUS_CODES } from 'node:http';
import { z } from 'zod';

export const ADMIN_PROBLEM_CODES = [
  // The framework (admin-router.ts, bearer.ts).
  'invalid_token',
  'insufficient_scope',
  'not_found',
  'method_not_allowed',
  'unsupported_media_type',
  'payload_too_large',
  'malformed_body',
  'validation_failed',
  'temporarily_unavailable',
  'server_error',
  // Users (users-routes.ts).
  'user_not_found',
  'duplicate_username',
  'password_empty',
  'password_too_short',
  'password_too_long',
  'password_common',
  'grant_not_found',
  'user_disabled',
  // Clients (clients-routes.ts).
  'client_not_found',
  'duplicate_client',
  'public_client',
  // Identity providers (identity-providers-routes.ts).
  'identity_provider_not_found',
  'duplicate_identity_provider',
  'domain_in_use',
] as const;

export type AdminProblemCode = (typeof ADMIN_PROBLEM_CODES)[number];

/** The problem document's schema (the OpenAPI document's `Problem`); problemDocument builds one. */
export const ProblemJson = z
  .object({
    type: z.string().meta({ description: '`urn:gatehouse:admin:problem:<code>`' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional(),
    code: z.enum(ADMIN_PROBLEM_CODES),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ description: 'RFC 9457 problem details' });

export interface FieldError {
  /** The field's path: `email`, `groups.1`, or a query parameter's name. */
  field: string;
  message: string;
}

export class AdminProblem extends Error {
  readonly status: number;
  readonly code: AdminProblemCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  constructor(status: number, code: AdminProblemCode, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = 'AdminProblem';
    this.status = status;
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

/** The problem document of an AdminProblem. */
export function problemDocument(problem: AdminProblem, instance: string): Record<string, unknown> {
  return {
    type: `urn:gatehouse:admin:problem:${problem.code}`,
    title: STATUS_CODES[problem.status] ?? 'Error',
    status: problem.status,
    detail: problem.message,
    code: problem.code,
    instance,
    ...(problem.errors ? { errors: problem.errors } : {}),
  };
}

export const validationFailed = (errors: FieldError[]): AdminProblem =>
  new AdminProblem(400, 'validation_failed', 'The request has invalid fields; see errors.', { errors });
