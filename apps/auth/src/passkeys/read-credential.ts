/**
 * Reading the browser's answer to a ceremony (the JSON of @simplewebauthn/browser's
 * startRegistration / startAuthentication, sent as one string field). Rules:
 * - at most CREDENTIAL_MAX characters; it must be a JSON object of type `public-key` whose id,
 *   rawId and response members are base64url strings, else 400 invalid_request;
 * - the challenge is read from clientDataJSON only to find the server-side challenge; whether it
 *   is the right one is checked by the store (single use, bound, unexpired) and by the
 *   signature verification.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { invalidRequest } from '../errors/auth-error.ts';

export const CREDENTIAL_MAX = 12 * 1024;

const B64URL = /^[A-Za-z0-9_-]*$/;

interface Parsed<T> {
  response: T;
  challenge: string;
}

const malformed = () => invalidRequest('The passkey answer is malformed. Try again.');

function parse(text: string, members: string[]): { json: Record<string, unknown>; challenge: string } {
  if (text.length > CREDENTIAL_MAX) throw malformed();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw malformed();
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw malformed();
  const credential = json as Record<string, unknown>;
  const response = credential.response as Record<string, unknown> | undefined;
  if (credential.type !== 'public-key' || !response || typeof response !== 'object') throw malformed();
  for (const value of [credential.id, credential.rawId, ...members.map((m) => response[m])]) {
    if (typeof value !== 'string' || !value || !B64URL.test(value)) throw malformed();
  }
  let challenge: unknown;
  try {
    challenge = (JSON.parse(Buffer.from(response.clientDataJSON as string, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    throw malformed();
  }
  if (typeof challenge !== 'string') throw malformed();
  return { json: credential, challenge };
}

export function readRegistration(text: string): Parsed<RegistrationResponseJSON> {
  const { json, challenge } = parse(text, ['clientDataJSON', 'attestationObject']);
  return { response: json as unknown as RegistrationResponseJSON, challenge };
}

export function readAuthentication(text: string): Parsed<AuthenticationResponseJSON> {
  const { json, challenge } = parse(text, ['clientDataJSON', 'authenticatorData', 'signature']);
  return { response: json as unknown as AuthenticationResponseJSON, challenge };
}
