/**
 * Refresh-token rotation (oidc-provider's `rotateRefreshToken`). Rules:
 * - every refresh rotates the refresh token: the presented one is consumed, and presenting it
 *   again revokes the grant (oidc-provider);
 * - a refresh that is refused for its `resource` (RFC 8707 invalid_target: more than one, or one
 *   the refresh token was not granted) is refused before the rotation, so a refused request leaves
 *   the client's refresh token as it was; oidc-provider itself checks the resource only after it
 *   rotated, which lost the client its refresh token (and revoked the grant on its next refresh).
 */
import { errors, type KoaContextWithOIDC } from 'oidc-provider';

export async function rotateRefreshToken(ctx: KoaContextWithOIDC): Promise<boolean> {
  const requested = ctx.oidc.params?.resource as string | string[] | undefined;
  if (!requested) return true;
  if (Array.isArray(requested)) throw new errors.InvalidTarget('only a single resource indicator value must be requested/resolved during Access Token Request');
  const granted = ctx.oidc.entities.RefreshToken?.resourceIndicators;
  if (!granted?.has(requested)) throw new errors.InvalidTarget();
  return true;
}
