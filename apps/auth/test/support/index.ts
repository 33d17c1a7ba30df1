export { startTestAuthServer } from './test-auth-server.ts';
export type { TestAuthServer, TestAuthServerOptions, TestUser } from './test-auth-server.ts';
export { CookieJar, request, form, jsonBody } from './cookie-jar.ts';
export type { HttpResponse } from './cookie-jar.ts';
export { pkcePair } from './pkce.ts';
export { dpopKey } from './dpop.ts';
export type { DpopKey } from './dpop.ts';
export { literalPageText } from './page-source-text.ts';
export type { LiteralPageText, PageSourceOptions } from './page-source-text.ts';
