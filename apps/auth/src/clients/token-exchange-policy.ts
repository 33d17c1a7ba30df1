/**
 * A client's token-exchange policy (RFC 8693): what it may exchange a subject token for. Rules:
 * - only a confidential client registered for the token-exchange grant has a policy, and such a
 *   client needs one: at least one audience and at least one scope;
 * - at most 20 audiences (each 1-2048 characters, no whitespace or control character) and at most
 *   100 scopes (each an RFC 6749 scope token: printable ASCII without space, `"` or `\`);
 *   duplicates are dropped, the order is kept;
 * - whether an audience is a resource server this server issues tokens for is judged at exchange
 *   time (oidc/token-exchange.ts answers invalid_target), so a policy may name one configured later;
 * - the policy never widens a token: an exchange is granted only scopes that are both in the policy
 *   and in the subject token.
 */
import { CodedError } from '../errors/coded-error.ts';

/** The grant type of RFC 8693 §2.1. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';

export interface TokenExchangePolicy {
  /** The audiences (resource servers) the client may request a token for. */
  audiences: string[];
  /** The scopes the client may request, within what the subject token had. */
  scopes: string[];
}

const MAX_AUDIENCES = 20;
const MAX_SCOPES = 100;

/** The refusal of a policy; the client store reports it as `invalid_input` on `token_exchange`. */
export class TokenExchangePolicyError extends CodedError<'invalid_token_exchange_policy'> {
  constructor(message: string) {
    super('invalid_token_exchange_policy', message);
  }
}

/** The policy as stored: checked, duplicates dropped. Throws TokenExchangePolicyError. */
export function checkTokenExchangePolicy(policy: TokenExchangePolicy): TokenExchangePolicy {
  const audiences = [...new Set(policy.audiences)];
  const scopes = [...new Set(policy.scopes)];
  if (audiences.length === 0) throw new TokenExchangePolicyError('token_exchange needs at least one audience');
  if (audiences.length > MAX_AUDIENCES) throw new TokenExchangePolicyError(`token_exchange may name at most ${MAX_AUDIENCES} audiences`);
  const badAudience = audiences.find((a) => a.length === 0 || a.length > 2048 || /[\s\p{Cc}]/u.test(a));
  if (badAudience !== undefined) throw new TokenExchangePolicyError(`token_exchange audience "${badAudience}" must be 1-2048 characters without whitespace`);
  if (scopes.length === 0) throw new TokenExchangePolicyError('token_exchange needs at least one scope');
  if (scopes.length > MAX_SCOPES) throw new TokenExchangePolicyError(`token_exchange may name at most ${MAX_SCOPES} scopes`);
  const badScope = scopes.find((s) => !/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/.test(s));
  if (badScope !== undefined) throw new TokenExchangePolicyError(`token_exchange scope "${badScope}" is not a scope token`);
  return { audiences, scopes };
}
