/**
 * `authctl client ...`, on the client service (admin/client-admin.ts, the admin API's code path;
 * every change is audited as the `cli` operator). Rules:
 * - a confidential client's secret is printed once, at creation or rotation, and never by
 *   `client list` / `client show`;
 * - `--grant` replaces the default grants (authorization_code, refresh_token), e.g. `--grant client_credentials`,
 *   or `--grant urn:ietf:params:oauth:grant-type:device_code` (RFC 8628; with `--public` for a CLI or TV app);
 * - `--id-token-field JWT_token` makes the token response repeat the ID token under that name (off by default);
 * - `--auth-method` is the one method the client may authenticate with (client-store.ts);
 *   private_key_jwt needs `--jwks <file>` (a JSON JWK Set of public keys, read from the file) or
 *   `--jwks-uri <url>`, and gets no secret; `--jwks`/`--jwks-uri` without private_key_jwt, or a
 *   file that cannot be read or is not JSON, is a usage error (exit 2);
 * - `--response-type` (repeated: code, id_token) replaces the default `code`; `--first-party` skips the
 *   consent page; `--require-dpop` makes access tokens DPoP-bound; `client update` turns the last
 *   two off with `--no-first-party` / `--no-require-dpop`;
 * - `--logo-uri <url>` registers the logo the consent page shows (client-store.ts checks it);
 *   `client update --no-logo-uri` removes it;
 * - `--grant device_code` stands for urn:ietf:params:oauth:grant-type:device_code (RFC 8628);
 * - `--grant token-exchange` stands for urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693);
 *   its policy is `--exchange-audience <aud>` and `--exchange-scope <scope>` (each repeated, both
 *   needed with the grant: client-store.ts); `client update` given one of the two keeps the other's
 *   stored list;
 * - `--backchannel-logout-uri <url>` registers where logout tokens are posted (Back-Channel Logout
 *   1.0), `--backchannel-logout-session-required` makes them carry `sid`; `client update` removes
 *   the URI (and the requirement) with `--no-backchannel-logout-uri` and turns the requirement off
 *   with `--no-backchannel-logout-session-required`;
 * - `client update` replaces each list it is given (`--redirect-uri`, `--post-logout-redirect-uri`,
 *   `--grant`, repeated for several values; `--clear-...` empties a URI list) and keeps the rest;
 * - `client rotate-secret --grace` takes `0`, whole seconds or a duration (`90s`, `30m`, `24h`, `7d`),
 *   24h when absent, at most 30 days; the old secret works until the printed time, then never;
 * - `--json` prints the admin API's body (admin/json/client-json.ts): a client, with its secret
 *   after add and rotate-secret; a list as `{ items, next }` (`next` null: every client at once);
 * - `client scopes` (the API scopes a client may request) is in scope-commands.ts.
 */
import { readFileSync } from 'node:fs';
import { CLI_OPERATOR } from '../audit/actor.ts';
import { clientJson, clientWithSecretJson } from '../admin/json/client-json.ts';
import { DEFAULT_GRACE_SECONDS, type ClientView } from '../admin/client-admin.ts';
import { CLIENT_AUTH_METHODS, DEVICE_CODE_GRANT, responseTypesOf, type ClientAuthMethod, type ClientChanges, type ClientJwks } from '../clients/client-store.ts';
import { TOKEN_EXCHANGE_GRANT, type TokenExchangePolicy } from '../clients/token-exchange-policy.ts';
import { parseCommand, UsageError } from './args.ts';
import type { CliContext } from './cli-context.ts';
import { printTable } from './table.ts';
import { clientScopes } from './scope-commands.ts';

export const CLIENT_USAGE = [
  '  client add <client_id> --redirect-uri <uri> [--redirect-uri <uri> ...] [--post-logout-redirect-uri <uri> ...]',
  '             [--public] [--auth-method client_secret_basic|client_secret_post|client_secret_jwt|private_key_jwt]',
  '             [--jwks <file> | --jwks-uri <url>] [--grant <type> ...] [--response-type code|id_token ...] [--name <n>]',
  '             [--first-party] [--require-dpop] [--logo-uri <url>] [--id-token-field JWT_token]',
  '             [--exchange-audience <aud> ... --exchange-scope <scope> ...]   (with --grant token-exchange)',
  '             [--backchannel-logout-uri <url> [--backchannel-logout-session-required]] [--json]',
  '  client list [--json]',
  '  client show <client_id> [--json]',
  '  client update <client_id> [--redirect-uri <uri> ... | --clear-redirect-uris]',
  '             [--post-logout-redirect-uri <uri> ... | --clear-post-logout-redirect-uris] [--grant <type> ...] [--name <n>]',
  '             [--auth-method <method>] [--jwks <file> | --jwks-uri <url>] [--response-type code|id_token ...]',
  '             [--first-party | --no-first-party] [--require-dpop | --no-require-dpop] [--logo-uri <url> | --no-logo-uri]',
  '             [--exchange-audience <aud> ...] [--exchange-scope <scope> ...]',
  '             [--backchannel-logout-uri <url> | --no-backchannel-logout-uri]',
  '             [--backchannel-logout-session-required | --no-backchannel-logout-session-required] [--json]',
  '  client rotate-secret <client_id> [--grace 24h|0|<seconds>|<n>s|<n>m|<n>h|<n>d] [--json]',
  '             prints the new secret once; the old one keeps working for the grace period (default 24h, at most 30d)',
  '  client remove <client_id>',
];

export async function runClientCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'add':
      return addClient(args, ctx);
    case 'list':
      return listClients(args, ctx);
    case 'show':
      return showClient(args, ctx);
    case 'update':
      return updateClient(args, ctx);
    case 'rotate-secret':
      return rotateSecret(args, ctx);
    case 'remove':
      return removeClient(args, ctx);
    case 'scopes':
      return clientScopes(args, ctx);
    default:
      throw new UsageError(sub ? `unknown command "client ${sub}"` : 'client: missing subcommand (add, list, show, update, rotate-secret, remove, scopes)');
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

const AUTH_METHOD_NAMES = new Set<string>(CLIENT_AUTH_METHODS);

function authMethodOption(value: string | undefined, command: string): ClientAuthMethod | undefined {
  if (value !== undefined && !AUTH_METHOD_NAMES.has(value)) throw new UsageError(`${command}: --auth-method must be one of ${CLIENT_AUTH_METHODS.join(', ')}`);
  return value as ClientAuthMethod | undefined;
}

/** `--response-type`, repeated: code or id_token (the store checks them against the grants). */
function responseTypesOption(values: string[] | undefined, command: string): string[] | undefined {
  const unknown = values?.find((v) => v !== 'code' && v !== 'id_token');
  if (unknown !== undefined) throw new UsageError(`${command}: --response-type must be code or id_token (repeat it for both), not "${unknown}"`);
  return values;
}

/** `--jwks <file>` / `--jwks-uri <url>`: the client's public keys for private_key_jwt. */
function keysOptions(values: { jwks?: string; 'jwks-uri'?: string }, authMethod: ClientAuthMethod | undefined, command: string, update: boolean): { jwks?: ClientJwks; jwksUri?: string } {
  const file = values.jwks;
  const uri = values['jwks-uri'];
  if (file !== undefined && uri !== undefined) throw new UsageError(`${command}: --jwks and --jwks-uri exclude each other`);
  if (file === undefined && uri === undefined) {
    if (authMethod === 'private_key_jwt') throw new UsageError(`${command}: --auth-method private_key_jwt needs --jwks <file> or --jwks-uri <url>`);
    return {};
  }
  // On update the client may already use private_key_jwt: the store checks the method.
  if (!update && authMethod !== 'private_key_jwt') throw new UsageError(`${command}: --jwks and --jwks-uri need --auth-method private_key_jwt`);
  if (uri !== undefined) return { jwksUri: uri };
  let text: string;
  try {
    text = readFileSync(file!, 'utf8');
  } catch {
    throw new UsageError(`${command}: --jwks: cannot read the file "${file}"`);
  }
  try {
    return { jwks: JSON.parse(text) as ClientJwks };
  } catch {
    throw new UsageError(`${command}: --jwks: the file "${file}" is not JSON (expected a JWK Set: {"keys": [...]})`);
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
      jwks: { type: 'string' },
      'jwks-uri': { type: 'string' },
      grant: { type: 'string', multiple: true },
      'response-type': { type: 'string', multiple: true },
      name: { type: 'string' },
      'first-party': { type: 'boolean' },
      'require-dpop': { type: 'boolean' },
      'logo-uri': { type: 'string' },
      'backchannel-logout-uri': { type: 'string' },
      'backchannel-logout-session-required': { type: 'boolean' },
      'id-token-field': { type: 'string' },
      'exchange-audience': { type: 'string', multiple: true },
      'exchange-scope': { type: 'string', multiple: true },
      json: { type: 'boolean' },
    },
  });
  const authMethod = authMethodOption(values['auth-method'], command);
  const responseTypes = responseTypesOption(values['response-type'], command);
  const keys = keysOptions(values, authMethod, command, false);
  const grantTypes = grantsOption(values.grant) ?? [];
  const tokenExchange = exchangeOptions(values['exchange-audience'], values['exchange-scope'], undefined, command);
  const redirectUris = values['redirect-uri'] ?? [];
  if (redirectUris.length === 0 && (grantTypes.length === 0 || grantTypes.includes('authorization_code') || responseTypes !== undefined)) {
    throw new UsageError(`${command}: missing required option --redirect-uri (or use --grant client_credentials)`);
  }
  const admin = await ctx.clientAdmin();
  const created = await admin.create(CLI_OPERATOR, {
    clientId: positionals[0]!,
    redirectUris,
    postLogoutRedirectUris: values['post-logout-redirect-uri'] ?? [],
    ...(values.public ? { public: true } : {}),
    ...(authMethod ? { authMethod } : {}),
    ...keys,
    ...(grantTypes.length ? { grantTypes } : {}),
    ...(responseTypes ? { responseTypes } : {}),
    ...(values.name ? { name: values.name } : {}),
    ...(values['first-party'] ? { firstParty: true } : {}),
    ...(values['require-dpop'] ? { dpopBoundAccessTokens: true } : {}),
    ...(values['logo-uri'] !== undefined ? { logoUri: values['logo-uri'] } : {}),
    ...(values['backchannel-logout-uri'] !== undefined ? { backchannelLogoutUri: values['backchannel-logout-uri'] } : {}),
    ...(values['backchannel-logout-session-required'] ? { backchannelLogoutSessionRequired: true } : {}),
    ...(values['id-token-field'] !== undefined ? { idTokenField: values['id-token-field'] } : {}),
    ...(tokenExchange ? { tokenExchange } : {}),
  });
  const clientId = created.client.clientId;
  if (values.json) {
    ctx.printJson(clientWithSecretJson(created.client, created.clientSecret));
    return;
  }
  if (created.clientSecret === undefined) {
    ctx.print(created.client.public ? `created public client ${clientId}` : `created confidential client ${clientId} (private_key_jwt: it authenticates with its keys, no secret)`);
    return;
  }
  ctx.print(`created confidential client ${clientId}`);
  ctx.print(`client_secret: ${created.clientSecret}`);
  ctx.print('Store the secret now: it is not shown again.');
}

async function listClients(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'client list', positionals: [], options: { json: { type: 'boolean' } } });
  const { items: all } = await (await ctx.clientAdmin()).list();
  if (values.json) {
    ctx.printJson({ items: all.map(clientJson), next: null });
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

async function showClient(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, { command: 'client show', positionals: ['client_id'], options: { json: { type: 'boolean' } } });
  const client = await (await ctx.clientAdmin()).get(positionals[0]!);
  if (values.json) {
    ctx.printJson(clientJson(client));
    return;
  }
  printClient(ctx, client);
}

function printClient(ctx: CliContext, c: ClientView): void {
  const rows: Array<[string, string]> = [
    ['client_id', c.clientId],
    ['name', c.name],
    ['type', c.public ? 'public' : 'confidential'],
    ['auth_method', c.tokenEndpointAuthMethod],
    ['grant_types', c.grantTypes.join(' ')],
    ['response_types', responseTypesOf(c).join(' ')],
    ['redirect_uris', c.redirectUris.join(' ')],
    ['post_logout_redirect_uris', c.postLogoutRedirectUris.join(' ')],
    ['first_party', c.firstParty ? 'yes' : 'no'],
    ['dpop_bound_access_tokens', c.dpopBoundAccessTokens ? 'yes' : 'no'],
    ['created_at', iso(c.createdAt)],
  ];
  if (c.jwks) rows.push(['jwks', c.jwks.keys.map((k) => String(k.kid ?? k.kty)).join(' ')]);
  if (c.jwksUri) rows.push(['jwks_uri', c.jwksUri]);
  if (c.logoUri) rows.push(['logo_uri', c.logoUri]);
  if (c.tokenExchange) rows.push(['token_exchange_audiences', c.tokenExchange.audiences.join(' ')], ['token_exchange_scopes', c.tokenExchange.scopes.join(' ')]);
  if (c.backchannelLogoutUri) {
    rows.push(['backchannel_logout_uri', c.backchannelLogoutUri]);
    rows.push(['backchannel_logout_session_required', c.backchannelLogoutSessionRequired ? 'yes' : 'no']);
  }
  if (c.idTokenField) rows.push(['id_token_field', c.idTokenField]);
  if (c.updatedAt !== undefined) rows.push(['updated_at', iso(c.updatedAt)]);
  if (c.secretRotatedAt !== undefined) rows.push(['secret_rotated_at', iso(c.secretRotatedAt)]);
  if (c.previousSecretExpiresAt !== undefined) rows.push(['previous_secret_expires_at', iso(c.previousSecretExpiresAt)]);
  for (const [key, value] of rows) ctx.print(`${key}: ${value}`);
}

async function updateClient(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'client update';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['client_id'],
    options: {
      'redirect-uri': { type: 'string', multiple: true },
      'clear-redirect-uris': { type: 'boolean' },
      'post-logout-redirect-uri': { type: 'string', multiple: true },
      'clear-post-logout-redirect-uris': { type: 'boolean' },
      grant: { type: 'string', multiple: true },
      name: { type: 'string' },
      'auth-method': { type: 'string' },
      jwks: { type: 'string' },
      'jwks-uri': { type: 'string' },
      'response-type': { type: 'string', multiple: true },
      'first-party': { type: 'boolean' },
      'no-first-party': { type: 'boolean' },
      'require-dpop': { type: 'boolean' },
      'no-require-dpop': { type: 'boolean' },
      'logo-uri': { type: 'string' },
      'no-logo-uri': { type: 'boolean' },
      'exchange-audience': { type: 'string', multiple: true },
      'exchange-scope': { type: 'string', multiple: true },
      'backchannel-logout-uri': { type: 'string' },
      'no-backchannel-logout-uri': { type: 'boolean' },
      'backchannel-logout-session-required': { type: 'boolean' },
      'no-backchannel-logout-session-required': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const flag = (
    on: 'first-party' | 'require-dpop' | 'backchannel-logout-session-required',
    off: 'no-first-party' | 'no-require-dpop' | 'no-backchannel-logout-session-required',
  ): boolean | undefined => {
    if (values[on] && values[off]) throw new UsageError(`${command}: --${on} and --${off} exclude each other`);
    return values[on] ? true : values[off] ? false : undefined;
  };
  const authMethod = authMethodOption(values['auth-method'], command);
  const responseTypes = responseTypesOption(values['response-type'], command);
  const keys = keysOptions(values, authMethod, command, true);
  const firstParty = flag('first-party', 'no-first-party');
  const dpop = flag('require-dpop', 'no-require-dpop');
  if (values['logo-uri'] !== undefined && values['no-logo-uri']) throw new UsageError(`${command}: --logo-uri and --no-logo-uri exclude each other`);
  const logoUri = values['no-logo-uri'] ? null : values['logo-uri'];
  if (values['backchannel-logout-uri'] !== undefined && values['no-backchannel-logout-uri']) {
    throw new UsageError(`${command}: --backchannel-logout-uri and --no-backchannel-logout-uri exclude each other`);
  }
  const backchannelLogoutUri = values['no-backchannel-logout-uri'] ? null : values['backchannel-logout-uri'];
  const backchannelSession = flag('backchannel-logout-session-required', 'no-backchannel-logout-session-required');
  const uris = (option: 'redirect-uri' | 'post-logout-redirect-uri', clear: 'clear-redirect-uris' | 'clear-post-logout-redirect-uris'): string[] | undefined => {
    if (values[clear] && values[option]) throw new UsageError(`${command}: --${option} and --${clear} exclude each other`);
    return values[clear] ? [] : values[option];
  };
  const redirectUris = uris('redirect-uri', 'clear-redirect-uris');
  const postLogoutRedirectUris = uris('post-logout-redirect-uri', 'clear-post-logout-redirect-uris');
  const admin = await ctx.clientAdmin();
  const exchangeGiven = values['exchange-audience'] !== undefined || values['exchange-scope'] !== undefined;
  const tokenExchange = exchangeGiven ? exchangeOptions(values['exchange-audience'], values['exchange-scope'], (await admin.get(positionals[0]!)).tokenExchange, command) : undefined;
  const grants = grantsOption(values.grant);
  const changes: ClientChanges = {
    ...(redirectUris !== undefined ? { redirectUris } : {}),
    ...(postLogoutRedirectUris !== undefined ? { postLogoutRedirectUris } : {}),
    ...(grants !== undefined ? { grantTypes: grants } : {}),
    ...(values.name !== undefined ? { name: values.name } : {}),
    ...(authMethod !== undefined ? { authMethod } : {}),
    ...keys,
    ...(responseTypes !== undefined ? { responseTypes } : {}),
    ...(firstParty !== undefined ? { firstParty } : {}),
    ...(dpop !== undefined ? { dpopBoundAccessTokens: dpop } : {}),
    ...(logoUri !== undefined ? { logoUri } : {}),
    ...(tokenExchange !== undefined ? { tokenExchange } : {}),
    ...(backchannelLogoutUri !== undefined ? { backchannelLogoutUri } : {}),
    ...(backchannelSession !== undefined ? { backchannelLogoutSessionRequired: backchannelSession } : {}),
  };
  if (Object.keys(changes).length === 0) {
    throw new UsageError(`${command}: nothing to update (give --redirect-uri, --post-logout-redirect-uri, --grant, --name, --auth-method, --jwks, --jwks-uri, --response-type, --[no-]first-party, --[no-]require-dpop, --logo-uri, --no-logo-uri, --exchange-audience, --exchange-scope, --[no-]backchannel-logout-uri, --[no-]backchannel-logout-session-required or a --clear-... option)`);
  }
  const client = await admin.update(CLI_OPERATOR, positionals[0]!, changes);
  if (values.json) {
    ctx.printJson(clientJson(client));
    return;
  }
  ctx.print(`updated client ${client.clientId}`);
  printClient(ctx, client);
}

/** `--grant` values, `token-exchange` standing for the RFC 8693 grant type and `device_code` for RFC 8628's. */
function grantsOption(grants: string[] | undefined): string[] | undefined {
  return grants?.map((g) => (g === 'token-exchange' ? TOKEN_EXCHANGE_GRANT : g === 'device_code' ? DEVICE_CODE_GRANT : g));
}

/** The token-exchange policy of `--exchange-audience` / `--exchange-scope`; a list not given is the stored one. */
function exchangeOptions(audiences: string[] | undefined, scopes: string[] | undefined, stored: TokenExchangePolicy | undefined, command: string): TokenExchangePolicy | undefined {
  if (audiences === undefined && scopes === undefined) return undefined;
  const policy = { audiences: audiences ?? stored?.audiences, scopes: scopes ?? stored?.scopes };
  if (policy.audiences === undefined) throw new UsageError(`${command}: --exchange-scope needs --exchange-audience too (the audiences the client may exchange for)`);
  if (policy.scopes === undefined) throw new UsageError(`${command}: --exchange-audience needs --exchange-scope too (the scopes the client may exchange for)`);
  return { audiences: policy.audiences, scopes: policy.scopes };
}

const DURATION_UNITS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** `0`, whole seconds, or a whole number of s/m/h/d; undefined when malformed. */
function parseGrace(text: string): number | undefined {
  const match = /^(\d{1,10})([smhd]?)$/.exec(text);
  return match ? Number(match[1]) * DURATION_UNITS[match[2]!]! : undefined;
}

/** 24h rather than 1d: whole days only above one. */
function formatGrace(seconds: number): string {
  if (seconds > 86_400 && seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  for (const [unit, size] of [['h', 3600], ['m', 60]] as const) if (seconds > 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

async function rotateSecret(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'client rotate-secret';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['client_id'],
    options: { grace: { type: 'string' }, json: { type: 'boolean' } },
  });
  const graceSeconds = values.grace === undefined ? undefined : parseGrace(values.grace);
  if (values.grace !== undefined && graceSeconds === undefined) {
    throw new UsageError(`${command}: --grace must be 0, whole seconds or a duration such as 90s, 30m, 24h or 7d`);
  }
  const rotated = await (await ctx.clientAdmin()).rotateSecret(CLI_OPERATOR, positionals[0]!, graceSeconds === undefined ? {} : { graceSeconds });
  const expiresAt = rotated.previousSecretExpiresAt;
  if (values.json) {
    ctx.printJson(clientWithSecretJson(rotated.client, rotated.clientSecret));
    return;
  }
  ctx.print(`rotated the secret of client ${rotated.client.clientId}`);
  ctx.print(`client_secret: ${rotated.clientSecret}`);
  ctx.print('Store the secret now: it is not shown again.');
  if (expiresAt === undefined) ctx.print('The previous secret no longer works.');
  else ctx.print(`The previous secret keeps working until ${iso(expiresAt)} (grace ${formatGrace(graceSeconds ?? DEFAULT_GRACE_SECONDS)}); deploy the new one before then.`);
}

async function removeClient(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'client remove', positionals: ['client_id'], options: {} });
  const clientId = positionals[0]!;
  await (await ctx.clientAdmin()).remove(CLI_OPERATOR, clientId);
  ctx.print(`removed client ${clientId}`);
}
