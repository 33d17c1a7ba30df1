import type { ParameterizedContext } from 'koa';
import type { AccessLogState, RequestIdState } from '@gatehouse/http';

/** What the middleware of one request of the authorization server learn, in order. */
export interface AuthState extends RequestIdState, AccessLogState {
  /**
   * Origins the page is about to redirect to after a form post (the client's redirect URI);
   * the CSP's form-action allows them (http/security-headers.ts).
   */
  formActionOrigins?: string[];
  /**
   * The origin of a client's logo the page shows (the consent page, RFC 7591 `logo_uri`); the
   * CSP's img-src allows it for this response only (http/security-headers.ts).
   */
  imgSrcOrigins?: string[];
  /** Set by oidc-provider's server_error listener when the cause was an unreachable database. */
  databaseUnavailable?: boolean;
}

export type AuthContext = ParameterizedContext<AuthState>;
