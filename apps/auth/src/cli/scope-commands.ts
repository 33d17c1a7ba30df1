/**
 * `authctl scope ...` and `authctl client scopes ...`: the access policy (policy/). Rules:
 * - `scope policy <scope> --groups a,b` restricts an API scope to users of those groups,
 *   `--clear` opens it to every user again; exactly one of the two;
 * - admin scopes (policy/admin-scopes.ts) may be listed for a client (the only way a client gets
 *   one: `--any` does not include them), but not given a group policy;
 * - `client scopes <client_id> <scope...>` limits what the client may request, `--any` lifts the
 *   limit, no scope and no `--any` prints the current list; scopes and `--any` together are refused;
 * - the operations, their checks and their audit events live in admin/scope-admin.ts (shared with
 *   the admin console); every change is audited with the CLI's actor.
 */
import { parseCommand, UsageError } from './args.ts';
import { CliError, type CliContext } from './cli-context.ts';
import { printTable } from './table.ts';
import { ScopePolicyError } from '../policy/scope-policy-service.ts';
import { CLI_OPERATOR } from '../audit/actor.ts';

export const SCOPE_USAGE = [
  '  scope policy <scope> (--groups <group,group...> | --clear)',
  '  scope policies [--json]',
  '  client scopes <client_id> [<scope> ... | --any] [--json]   API scopes, and admin scopes (admin:users:read ...: never granted unless listed here)',
];

export async function runScopeCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'policy':
      return setPolicy(args, ctx);
    case 'policies':
      return listPolicies(args, ctx);
    default:
      throw new UsageError(sub ? `unknown command "scope ${sub}"` : 'scope: missing subcommand (policy, policies)');
  }
}

/** Turns the service's refusals into the CLI's one-line errors. */
async function reported<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ScopePolicyError) throw new CliError(error.message);
    throw error;
  }
}

async function setPolicy(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'scope policy';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['scope'],
    options: { groups: { type: 'string' }, clear: { type: 'boolean' } },
  });
  const scope = positionals[0]!;
  if ((values.groups === undefined) === (values.clear === undefined)) {
    throw new UsageError(`${command}: give exactly one of --groups <group,group...> or --clear`);
  }
  const scopePolicies = await ctx.scopeAdmin();
  if (values.clear) {
    await reported(() => scopePolicies.clear(CLI_OPERATOR, scope));
    ctx.print(`scope ${scope} is open to every user`);
    return;
  }
  const groups = values.groups!.split(',').map((g) => g.trim());
  if (groups.some((g) => g === '')) throw new UsageError(`${command}: --groups has an empty group name`);
  const saved = await reported(() => scopePolicies.restrict(CLI_OPERATOR, scope, groups));
  ctx.print(`scope ${scope} is granted only to users in: ${saved.groups.join(', ')}`);
}

async function listPolicies(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'scope policies', positionals: [], options: { json: { type: 'boolean' } } });
  const scopePolicies = await ctx.scopeAdmin();
  const all = await scopePolicies.list();
  if (values.json) {
    ctx.printJson(all.map((p) => ({ scope: p.scope, groups: p.groups, updated_at: new Date(p.updatedAt).toISOString() })));
    return;
  }
  if (all.length === 0) {
    ctx.print('no scope policies: every API scope is open to every user');
    return;
  }
  printTable(ctx, ['SCOPE', 'GROUPS'], all.map((p) => [p.scope, p.groups.join(',')]));
}

export async function clientScopes(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'client scopes';
  const count = Math.max(1, args.filter((a) => !a.startsWith('-')).length);
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['client_id', ...Array.from({ length: count - 1 }, () => 'scope')],
    options: { any: { type: 'boolean' }, json: { type: 'boolean' } },
  });
  const [clientId, ...scopes] = positionals as [string, ...string[]];
  if (values.any && scopes.length) throw new UsageError(`${command}: give scopes or --any, not both`);
  const scopePolicies = await ctx.scopeAdmin();
  if (values.any || scopes.length) {
    await reported(() => scopePolicies.setClientScopes(CLI_OPERATOR, clientId, values.any ? null : scopes));
  }
  const current = await reported(() => scopePolicies.clientScopes(clientId));
  if (values.json) {
    ctx.printJson({ client_id: clientId, allowed_scopes: current });
    return;
  }
  ctx.print(current === null ? `client ${clientId} may request any API scope` : `client ${clientId} may request: ${current.join(' ')}`);
}
