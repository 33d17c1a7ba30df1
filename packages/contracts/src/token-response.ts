import { z } from 'zod';

/** The token endpoint's successful answer (RFC 6749 §5.1, docs/spec.md §2.3 "Token response"). */
export const TokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive(),
  scope: z.string(),
  id_token: z.string().min(1).optional(),
  refresh_token: z.string().min(1).optional(),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

/** RFC 6749 §5.2 error body, as sent by every OAuth endpoint. */
export const OAuthError = z.object({
  error: z.string().min(1),
  error_description: z.string().optional(),
});
export type OAuthError = z.infer<typeof OAuthError>;
