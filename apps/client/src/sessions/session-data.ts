/**
 * What a signed-in session holds. It lives server-side only (session-store.ts); the browser
 * holds nothing but the random session key in the `<client id>.sid` cookie.
 */
export interface SessionUser {
  sub: string;
  name?: string;
  email?: string;
  groups: string[];
}

export interface SessionTokens {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  /** Epoch ms at which the access token expires. */
  expiresAt: number;
  scope: string;
}

export interface Flash {
  kind: 'info' | 'error';
  text: string;
}

export interface UserSession {
  user: SessionUser;
  tokens: SessionTokens;
  /** Per-session token every form posts back (forms of other apps on the same host cannot know it). */
  csrf: string;
  createdAt: number;
  /** Absolute end of the session, epoch ms. */
  expiresAt: number;
  /** Last time the SSO session was confirmed at the authorization server, epoch ms. */
  ssoCheckedAt: number;
  /** The ID token's `sid`: the SSO session a back-channel logout names. */
  sid?: string;
  flash?: Flash;
}

/** The signed-in session of this request, if any (a session without a user is no session). */
export function readSession(session: Record<string, unknown> | null | undefined): UserSession | undefined {
  if (!session) return undefined;
  const value = session as Partial<UserSession>;
  if (!value.user || typeof value.user.sub !== 'string' || !value.tokens || typeof value.tokens.accessToken !== 'string') return undefined;
  return value as UserSession;
}
