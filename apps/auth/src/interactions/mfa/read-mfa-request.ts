/**
 * Reading a POST /mfa/verify. Rules:
 * - the interaction must be this browser's and match the form's `uid` (else interaction_expired);
 * - it must have passed the password step (else 400 password_required);
 * - `method` is `totp` (the default), `push`, `recovery` or `passkey`, else 400 invalid_request;
 * - `totp` and `recovery` need a `code` (at most 16 and 64 characters); spaces and dashes in it
 *   are ignored (mfa/one-time-code.ts; a recovery code's own normalisation does the same);
 * - `passkey` needs a `credential` (the browser's assertion as JSON text).
 * The first two are answered by request-context.ts; the last two with the challenge page, since
 * by then the interaction and its pending login are known.
 */
import type { Context } from 'koa';
import { AuthError, invalidRequest } from '../../errors/auth-error.ts';
import { readBody, requireField, type ParsedBody } from '../../http/read-body.ts';
import { normalizeOneTimeCode } from '../../mfa/one-time-code.ts';
import { CREDENTIAL_MAX } from '../../passkeys/read-credential.ts';
import type { HandlerServices } from '../deps.ts';
import { loadInteraction, pendingLogin, type Interaction, type PendingLogin } from '../interaction-state.ts';

/** A second-factor request of a known interaction, past its password step. */
export interface MfaRequest {
  interaction: Interaction;
  pending: PendingLogin;
  /** Whether the caller gets JSON (else HTML). */
  json: boolean;
}

export type SecondFactor = { method: 'push' } | { method: 'totp' | 'recovery'; code: string } | { method: 'passkey'; credential: string };

export type ReadMfaRequestDeps = Pick<HandlerServices, 'provider'>;

export async function readMfaRequest(ctx: Context, deps: ReadMfaRequestDeps): Promise<MfaRequest & { body: ParsedBody }> {
  const body = await readBody(ctx);
  const interaction = await loadInteraction(deps.provider(), ctx, body.fields.uid);
  const pending = pendingLogin(interaction);
  if (!pending) throw new AuthError(400, 'password_required', 'Enter your username and password first.');
  return { interaction, pending, json: body.json, body };
}

export function readSecondFactor(body: ParsedBody): SecondFactor {
  const method = body.fields.method ?? 'totp';
  if (method === 'push') return { method };
  if (method === 'passkey') return { method, credential: requireField(body, 'credential', CREDENTIAL_MAX) };
  if (method !== 'totp' && method !== 'recovery') throw invalidRequest(`Unsupported second-factor method "${method}".`);
  return { method, code: normalizeOneTimeCode(requireField(body, 'code', method === 'recovery' ? 64 : 16)) };
}
