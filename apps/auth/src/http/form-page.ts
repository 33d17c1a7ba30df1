/**
 * A form post whose refusals are answered by the page the form lives on (the login, the second
 * factor, the account page, a password-reset link). Rules:
 * - the request is read first (`read`: its body, interaction or link); a refusal while reading
 *   goes on to the error middleware, since there is no page to show it on yet;
 * - only an AuthError is a refusal; anything else goes on to the error middleware (a 500);
 * - a refusal's headers (Retry-After on 429) are set, whoever answers it;
 * - `refused` sees every refusal of the work first, shown or not (its audit line);
 * - `page` answers the refusal and returns true, or returns false for a refusal the page does not
 *   show (an expired interaction, a JSON caller of a browser-only form), which then goes on to the
 *   error middleware.
 */
import type { Context } from 'koa';
import { AuthError } from '../errors/auth-error.ts';

export interface FormPage<R> {
  read(): Promise<R>;
  run(request: R): Promise<void>;
  refused?(error: AuthError, request: R): void;
  page(error: AuthError, request: R): Promise<boolean>;
}

export async function formPage<R>(ctx: Context, form: FormPage<R>): Promise<void> {
  const request = await form.read();
  try {
    await form.run(request);
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
    form.refused?.(error, request);
    if (!(await form.page(error, request))) throw error;
  }
}
