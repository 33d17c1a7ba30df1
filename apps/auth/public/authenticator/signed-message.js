// @ts-check
/**
 * The messages a web-authenticator device signs, built by this one module on both sides: the
 * browser imports it (served as /authenticator/signed-message.js) to sign, the server imports it
 * (src/devices/signed-request.ts) to verify. Plain string building, no platform API, so it runs
 * unchanged in both. Rules (the verification rules are in signed-request.ts):
 * - every message starts with SIGNATURE_CONTEXT and names its purpose (`enroll`, `list`,
 *   `answer`), so a signature made for one purpose is worthless for another;
 * - the fields follow in a fixed order, joined by `.`; no field can hold a `.` of its own
 *   (codes, ids, nonces are base64url; timestamps and numbers are decimal; decisions are words).
 * The types are declared in signed-message.d.ts, which server code and the browser script read.
 */

/** @type {typeof import('./signed-message.js').SIGNATURE_CONTEXT} */
export const SIGNATURE_CONTEXT = 'gatehouse-authenticator-v1';

/** @type {typeof import('./signed-message.js').enrollMessage} */
export const enrollMessage = (code) => `${SIGNATURE_CONTEXT}.enroll.${code}`;

/** @type {typeof import('./signed-message.js').listMessage} */
export const listMessage = (deviceId, timestamp, nonce) => `${SIGNATURE_CONTEXT}.list.${deviceId}.${timestamp}.${nonce}`;

/** @type {typeof import('./signed-message.js').answerMessage} */
export const answerMessage = (transactionId, decision, number, deviceId) =>
  `${SIGNATURE_CONTEXT}.answer.${transactionId}.${decision}.${number}.${deviceId}`;
