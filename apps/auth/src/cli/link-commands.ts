/**
 * `authctl user link|unlink|links`: an operator links a local account to a user of an upstream
 * identity provider, removes the link, or lists them (federation/operator-links.ts, audited as the
 * `cli` operator). Rules:
 * - `user link <username> --idp <slug> --subject <upstream subject>`: the subject is the value of
 *   the provider's subject claim for that user (OpenID Connect `sub`, GitHub's numeric id);
 *   the user then signs in with the provider as this account;
 * - `user unlink <username> --idp <slug>` removes the account's link to that provider;
 * - `user links <username> [--json]` lists the account's links, oldest first;
 * - refusals (unknown user or provider, a subject already linked, an account already linked to
 *   another user of the provider, no link to remove) are one line and exit 1.
 */
import { CLI_OPERATOR } from '../audit/actor.ts';
import type { AccountLink } from '../federation/account-link-store.ts';
import { parseCommand, required } from './args.ts';
import type { CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const LINK_SUBCOMMANDS: ReadonlySet<string> = new Set(['link', 'unlink', 'links']);

export const LINK_USAGE = [
  '  user link <username> --idp <slug> --subject <upstream subject>   the user signs in with that upstream account as <username>',
  '  user unlink <username> --idp <slug>  removes the user\'s link to the identity provider',
  '  user links <username> [--json]       the user\'s links to upstream identity providers',
];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A link as `--json` prints it. */
const linkJson = (l: AccountLink) => ({ provider: l.provider, subject: l.subject, created_at: iso(l.createdAt), last_used_at: iso(l.lastUsedAt) });

export async function runLinkCommand(sub: string, args: readonly string[], ctx: CliContext): Promise<void> {
  const links = await ctx.operatorLinks();
  if (sub === 'link') {
    const command = 'user link';
    const { positionals, values } = parseCommand(args, { command, positionals: ['username'], options: { idp: { type: 'string' }, subject: { type: 'string' } } });
    const provider = required(values.idp, command, 'idp');
    const subject = required(values.subject, command, 'subject');
    await links.link(CLI_OPERATOR, positionals[0]!, provider, subject);
    ctx.print(`linked ${positionals[0]!} to the ${provider} user ${subject}`);
    return;
  }
  if (sub === 'unlink') {
    const command = 'user unlink';
    const { positionals, values } = parseCommand(args, { command, positionals: ['username'], options: { idp: { type: 'string' } } });
    const provider = required(values.idp, command, 'idp');
    await links.unlink(CLI_OPERATOR, positionals[0]!, provider);
    ctx.print(`unlinked ${positionals[0]!} from ${provider}`);
    return;
  }
  const { positionals, values } = parseCommand(args, { command: 'user links', positionals: ['username'], options: { json: { type: 'boolean' } } });
  const list = await links.list(positionals[0]!);
  if (values.json) {
    ctx.printJson({ items: list.map(linkJson) });
    return;
  }
  if (list.length === 0) {
    ctx.print(`${positionals[0]!} has no links to identity providers`);
    return;
  }
  printTable(
    ctx,
    ['PROVIDER', 'SUBJECT', 'LINKED', 'LAST_USED'],
    list.map((l) => [l.provider, l.subject, iso(l.createdAt)!, iso(l.lastUsedAt) ?? '-']),
  );
}
