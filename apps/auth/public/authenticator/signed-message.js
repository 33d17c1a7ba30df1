// @ts-check
/**
 * The messages a web-authenticator device signs, built by this one module on both sides: the
 * browser imports it (served as /authenticator/signed-message.js) to sign, the server imports it
 * (src/devices/signed-request.ts) to verify. Plain string building, no platform API, so it runs
 * unchanged in both. Rules (the verification rules are in signed-request.ts):
 * - every message starts with SIGNATURE_CONTEXT and names its purpose (`enroll`, `list`,
 *   `answer`), so a signature made for one purpose is worthless for another;
 * - the fields follow in a fixed order, joined by `.`; no field can hold a `.` of its own
 *   (ids and nonces are base64url; timestamps and numbers are decimal; decisions are words);
 * - an enrollment code is signed in its normal form (normalizeEnrollmentCode: upper case, spaces
 *   and dashes dropped, I and L read as 1, O as 0), so the code may be typed in any case and
 *   grouping and both sides still sign and verify the same message;
 * - a report ("this wasn't me" after a denial) signs the transaction id and the device id.
 * The types are declared in signed-message.d.ts, which server code and the browser script read.
 */

/** @type {typeof import('./signed-message.js').SIGNATURE_CONTEXT} */
export const SIGNATURE_CONTEXT = 'gatehouse-authenticator-v1';

/** @type {typeof import('./signed-message.js').normalizeEnrollmentCode} */
export const normalizeEnrollmentCode = (code) =>
  code
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/[IL]/g, '1')
    .replace(/O/g, '0');

/** @type {typeof import('./signed-message.js').enrollMessage} */
export const enrollMessage = (code) => `${SIGNATURE_CONTEXT}.enroll.${normalizeEnrollmentCode(code)}`;

/** @type {typeof import('./signed-message.js').listMessage} */
export const listMessage = (deviceId, timestamp, nonce) => `${SIGNATURE_CONTEXT}.list.${deviceId}.${timestamp}.${nonce}`;

/** @type {typeof import('./signed-message.js').answerMessage} */
export const answerMessage = (transactionId, decision, number, deviceId) =>
  `${SIGNATURE_CONTEXT}.answer.${transactionId}.${decision}.${number}.${deviceId}`;

/** @type {typeof import('./signed-message.js').reportMessage} */
export const reportMessage = (transactionId, deviceId) => `${SIGNATURE_CONTEXT}.report.${transactionId}.${deviceId}`;
