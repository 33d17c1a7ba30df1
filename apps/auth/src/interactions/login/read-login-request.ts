/**
 * Reading a POST /login. Rules:
 * - the body follows the interaction endpoints' rules (http/read-body.ts);
 * - the interaction must be this browser's (signed cookie) and match the form's `uid`, else
 *   interaction_expired;
 * - `username` (at most 64 characters, surrounding whitespace ignored) and `password` (at most
 *   1024) are required, else 400 invalid_request; by then the interaction is known, so the login
 *   page shows that refusal.
 */
import type { Context } from 'koa';
import { readBody, requireField, type ParsedBody } from '../../http/read-body.ts';
import type { HandlerServices } from '../deps.ts';
import { loadInteraction, type Interaction } from '../interaction-state.ts';

/** A password-step request of a known interaction. */
export interface LoginRequest {
  body: ParsedBody;
  interaction: Interaction;
  /** Whether the caller gets JSON (else HTML). */
  json: boolean;
}

export interface Credentials {
  username: string;
  password: string;
}

export type ReadLoginRequestDeps = Pick<HandlerServices, 'provider'>;

export async function readLoginRequest(ctx: Context, deps: ReadLoginRequestDeps): Promise<LoginRequest> {
  const body = await readBody(ctx);
  const interaction = await loadInteraction(deps.provider(), ctx, body.fields.uid);
  return { body, interaction, json: body.json };
}

export function readCredentials(body: ParsedBody): Credentials {
  const username = requireField(body, 'username', 64).trim();
  return { username, password: requireField(body, 'password', 1024) };
}
