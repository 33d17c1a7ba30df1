/**
 * Starting a push for a login. Rules:
 * - only for an account with at least one enrolled device (else 400 push_unavailable);
 * - a login has at most one live push: asking again returns the live one, with the same number;
 * - an account may start PUSH_RATE_MAX pushes per PUSH_RATE_WINDOW_MS (no push bombing); beyond
 *   that 429 too_many_pushes with Retry-After, which does not count toward the password lockout;
 * - a push lives PUSH_TTL_MS; its number has two digits and is shown among PUSH_CHOICES - 1
 *   distinct decoys in random order, so approving blindly is a guess;
 * - the IP and user agent shown on the authenticator are the requesting browser's (user agent
 *   cut to 256 characters).
 */
import { randomInt } from 'node:crypto';
import { AuthError } from '../errors/auth-error.ts';
import type { Auditor } from '../audit/auditor.ts';
import type { DeviceStore } from '../devices/device-store.ts';
import type { PushHub } from './push-hub.ts';
import type { PushStore, PushTransaction } from './push-store.ts';

export const PUSH_TTL_MS = 60_000;
export const PUSH_RATE_MAX = 5;
export const PUSH_RATE_WINDOW_MS = 10 * 60_000;
export const PUSH_CHOICES = 3;

export interface PushChallengeDeps {
  devices: DeviceStore;
  pushes: PushStore;
  pushHub: PushHub;
  audit: Auditor;
  clock: () => number;
}

export interface PushRequest {
  accountId: string;
  interactionUid: string;
  clientName: string;
  ip: string;
  userAgent: string;
}

/** A two-digit number and the choices it hides among. */
export function pickNumbers(count = PUSH_CHOICES): { number: number; choices: number[] } {
  const choices = new Set<number>();
  while (choices.size < count) choices.add(randomInt(10, 100));
  const list = [...choices];
  const number = list[0]!;
  for (let i = list.length - 1; i > 0; i--) {
    const j = randomInt(0, i + 1);
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return { number, choices: list };
}

export async function startPush(deps: PushChallengeDeps, request: PushRequest): Promise<PushTransaction> {
  if ((await deps.devices.countByAccount(request.accountId)) === 0) {
    throw new AuthError(400, 'push_unavailable', 'No authenticator device is enrolled for this account. Use a code instead.');
  }
  const live = await deps.pushes.findLive(request.interactionUid);
  if (live && live.accountId === request.accountId) return live;

  const now = deps.clock();
  const recent = await deps.pushes.countSince(request.accountId, now - PUSH_RATE_WINDOW_MS);
  if (recent >= PUSH_RATE_MAX) {
    deps.audit.record('push.rate_limited', { account_id: request.accountId, ip: request.ip });
    const retryAfter = Math.ceil(PUSH_RATE_WINDOW_MS / 1000);
    throw new AuthError(429, 'too_many_pushes', 'Too many push requests. Wait a few minutes, or use a code instead.', {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
  const { number, choices } = pickNumbers();
  const { transaction, created } = await deps.pushes.create({
    accountId: request.accountId,
    interactionUid: request.interactionUid,
    number,
    choices,
    clientName: request.clientName.slice(0, 128),
    ip: request.ip,
    userAgent: request.userAgent.slice(0, 256),
    expiresAt: now + PUSH_TTL_MS,
  });
  if (created) {
    deps.audit.record('push.sent', { account_id: request.accountId, push_id: transaction.id, ip: request.ip });
    deps.pushHub.notify(request.accountId);
  }
  return transaction;
}
