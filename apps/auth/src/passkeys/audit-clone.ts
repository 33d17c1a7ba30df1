import type { Context } from 'koa';
import type { Auditor } from '../audit/auditor.ts';
import type { PasskeyAssertionRefused } from './authentication.ts';

/** Audits `passkey.clone_suspected` when the refusal was a counter regression. */
export function auditCloneSuspected(ctx: Context, audit: Auditor, error: PasskeyAssertionRefused): void {
  if (error.reason !== 'counter_regression' || !error.passkey || !error.counters) return;
  audit.record('passkey.clone_suspected', {
    account_id: error.passkey.accountId,
    credential_id: error.passkey.id,
    stored_counter: error.counters.stored,
    presented_counter: error.counters.presented,
    ip: ctx.ip,
  });
}
