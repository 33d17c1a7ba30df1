/**
 * `authctl client ...`. Rules:
 * - a confidential client's secret is printed once, at creation, and never by `client list`;
 * - `--grant` replaces the default grants (authorization_code, refresh_token), e.g. `--grant client_credentials`;
 * - `--id-token-field JWT_token` makes the token response repeat the ID token under that name (off by default);
 * - `client scopes` (the API scopes a client may request) is in scope-commands.ts.
 */
import type { ClientAuthMethod } from '../clients/client-store.ts';
import { parseCommand, UsageError } from './args.ts';
import { CliError, type CliContext } from './cli-context.ts';
import { printTable } from './table.ts';
import { clientScopes } from './scope-commands.ts';

export const CLIENT_USAGE = [
  '  client add <client_id> --redirect-uri <uri> [--redirect-uri <uri> ...] [--post-logout-redirect-uri <uri> ...]',
  '             [--public] [--auth-method client_secret_basic|client_secret_post] [--grant <type> ...] [--name <n>]',
  '             [--id-token-field JWT_token] [--json]',
  '  client list [--json]',
  '  client remove <client_id>',
];

export async function runClientCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'add':
      return addClient(args, ctx);
    case 'list':
      return listClients(args, ctx);
    case 'remove':
      return removeClient(args, ctx);
    case 'scopes':
      return clientScopes(args, ctx);
    default:
      throw new UsageError(sub ? `unknown command "client ${sub}"` : 'client: missing subcommand (add, list, remove, scopes)');
  }
}

async function addClient(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'client add';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['client_id'],
    options: {
      'redirect-uri': { type: 'string', multiple: true },
      'post-logout-redirect-uri': { type: 'string', multiple: true },
      public: { type: 'boolean' },
      'auth-method': { type: 'string' },
      grant: { type: 'string', multiple: true },
      name: { type: 'string' },
      'id-token-field': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const authMethod = values['auth-method'];
  if (authMethod !== undefined && authMethod !== 'client_secret_basic' && authMethod !== 'client_secret_post') {
    throw new UsageError(`${command}: --auth-method must be client_secret_basic or client_secret_post`);
  }
  const grantTypes = values.grant ?? [];
  const redirectUris = values['redirect-uri'] ?? [];
  if (redirectUris.length === 0 && (grantTypes.length === 0 || grantTypes.includes('authorization_code'))) {
    throw new UsageError(`${command}: missing required option --redirect-uri (or use --grant client_credentials)`);
  }
  const { clients } = await ctx.stores();
  const created = await clients.create({
    clientId: positionals[0]!,
    redirectUris,
    postLogoutRedirectUris: values['post-logout-redirect-uri'] ?? [],
    ...(values.public ? { public: true } : {}),
    ...(authMethod ? { authMethod: authMethod as ClientAuthMethod } : {}),
    ...(grantTypes.length ? { grantTypes } : {}),
    ...(values.name ? { name: values.name } : {}),
    ...(values['id-token-field'] !== undefined ? { idTokenField: values['id-token-field'] } : {}),
  });
  if (values.json) {
    ctx.printJson({ client_id: created.clientId, ...(created.clientSecret ? { client_secret: created.clientSecret } : {}) });
    return;
  }
  if (created.clientSecret === undefined) {
    ctx.print(`created public client ${created.clientId}`);
    return;
  }
  ctx.print(`created confidential client ${created.clientId}`);
  ctx.print(`client_secret: ${created.clientSecret}`);
  ctx.print('Store the secret now: it is not shown again.');
}

async function listClients(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'client list', positionals: [], options: { json: { type: 'boolean' } } });
  const { clients } = await ctx.stores();
  const all = await clients.list();
  if (values.json) {
    ctx.printJson(
      all.map((c) => ({
        client_id: c.clientId,
        name: c.name,
        public: c.public,
        token_endpoint_auth_method: c.tokenEndpointAuthMethod,
        grant_types: c.grantTypes,
        redirect_uris: c.redirectUris,
        post_logout_redirect_uris: c.postLogoutRedirectUris,
        ...(c.idTokenField ? { id_token_field: c.idTokenField } : {}),
        created_at: new Date(c.createdAt).toISOString(),
      })),
    );
    return;
  }
  if (all.length === 0) {
    ctx.print('no clients');
    return;
  }
  printTable(
    ctx,
    ['CLIENT_ID', 'TYPE', 'AUTH', 'GRANTS', 'REDIRECT_URIS'],
    all.map((c) => [c.clientId, c.public ? 'public' : 'confidential', c.tokenEndpointAuthMethod, c.grantTypes.join(','), c.redirectUris.join(' ')]),
  );
}

async function removeClient(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'client remove', positionals: ['client_id'], options: {} });
  const clientId = positionals[0]!;
  const { clients } = await ctx.stores();
  if (!(await clients.remove(clientId))) throw new CliError(`unknown client "${clientId}"`);
  ctx.print(`removed client ${clientId}`);
}
