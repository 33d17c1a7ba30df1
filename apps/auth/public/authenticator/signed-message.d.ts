/**
 * Types of signed-message.js (the one builder of the messages a web-authenticator device signs;
 * its header lists the rules). The implementation is annotated with these declarations, so
 * `tsc` checks it against them.
 */
export declare const SIGNATURE_CONTEXT = 'gatehouse-authenticator-v1';

export type Decision = 'approve' | 'deny';

/** An enrollment code as typed, in its normal form: upper case, no spaces or dashes, I/L as 1, O as 0. */
export declare function normalizeEnrollmentCode(code: string): string;
/** Signed once at enrollment, with the new key, over the one-time enrollment code (normalized). */
export declare function enrollMessage(code: string): string;
/** Signed for each listing request (poll or event stream): device id, epoch-ms timestamp, nonce. */
export declare function listMessage(deviceId: string, timestamp: string, nonce: string): string;
/** Signed over an answer to one push: transaction, decision, chosen number ('' on deny), device. */
export declare function answerMessage(transactionId: string, decision: Decision, number: string, deviceId: string): string;
/** Signed when the user reports a push the device denied as not theirs: transaction, device. */
export declare function reportMessage(transactionId: string, deviceId: string): string;
