import type { Context } from 'koa';
import { audit, type Logger } from '../logging/logger.ts';
import type { PasskeyAssertionRefused } from './authentication.ts';

/** Audits `passkey.clone_suspected` when the refusal was a counter regression. */
export function auditCloneSuspected(ctx: Context, logger: Logger, error: PasskeyAssertionRefused): void {
  if (error.reason !== 'counter_regression' || !error.passkey || !error.counters) return;
  audit(logger, 'passkey.clone_suspected', {
    account_id: error.passkey.accountId,
    credential_id: error.passkey.id,
    stored_counter: error.counters.stored,
    presented_counter: error.counters.presented,
    ip: ctx.ip,
  });
}
