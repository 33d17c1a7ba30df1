/**
 * @gatehouse/http: the HTTP plumbing every Gatehouse app mounts the same way: request ids
 * ({@link requestId}), one access-log line ({@link accessLog}), security headers set in `finally`
 * ({@link securityHeaders}), the one JSON-or-HTML rule ({@link responseFormat}) and the base of
 * every app's error type ({@link HttpError}), the signer of signed cookies ({@link cookieSigner}), the one bounded body reader ({@link readRequestBody}), and the check of a DPoP proof sent to a protected resource ({@link verifyDpopProof}). Each app keeps its own error rendering on top.
 */
export { requestId, isSafeRequestId } from './request-id.ts';
export type { RequestIdState } from './request-id.ts';
export { accessLog, logRequest } from './access-log.ts';
export type { AccessLogger, AccessLogOptions, AccessLogState, RequestLine } from './access-log.ts';
export { securityHeaders, isHtmlResponse, BASE_SECURITY_HEADERS } from './security-headers.ts';
export type { SecurityHeadersOptions } from './security-headers.ts';
export { responseFormat } from './response-format.ts';
export type { ResponseFormat } from './response-format.ts';
export { HttpError } from './http-error.ts';
export { cookieSigner } from './cookie-signer.ts';
export type { CookieSigner } from './cookie-signer.ts';
export type { HttpErrorOptions } from './http-error.ts';
export { verifyDpopProof, DpopProofError } from './dpop-proof.ts';
export type { DpopProof, DpopProofExpectation, DpopProofFailure } from './dpop-proof.ts';
export { readRequestBody, BodyError } from './read-body.ts';
export type { BodyErrorCode, BodyMediaType, BodyReaderOptions, FormBody, JsonBody, JsonMediaType, RequestBody } from './read-body.ts';
