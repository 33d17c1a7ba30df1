/**
 * The authentication context class every Gatehouse sign-in ends with: a password (or an upstream
 * provider) and then a second factor, or an upstream's MFA that its provider's policy trusts. The
 * session records it (interactions/mfa/complete-login.ts), ID tokens carry it (oidc/find-account.ts)
 * and the admin console asks for it (console/console-access.ts).
 */
export const MFA_ACR = 'urn:gatehouse:loa:mfa';
