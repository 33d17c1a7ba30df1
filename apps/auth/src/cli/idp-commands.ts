/**
 * `authctl idp ...`: the upstream identity providers users may sign in with, on the registry
 * service (federation/identity-provider-service.ts, the admin API's code path; every change is
 * audited as the `cli` operator). Rules:
 * - the client secret is read from standard input (`--client-secret-stdin`, one trailing newline
 *   dropped), from a file (`--client-secret-file <path>`, likewise) or, least safe since it shows
 *   in the process list and the shell's history, from `--client-secret <value>`; exactly one of
 *   them. It is never printed: not by add, show, list or update, not in `--json`, not in logs;
 * - private_key_jwt reads the private JWK (JSON) from `--private-key-file <path>`, never printed either;
 * - `--preset google|microsoft|github|oidc|oauth2` starts from a preset (identity-provider-presets.ts;
 *   `--tenant` with microsoft); options given lay over it;
 * - repeated options (`--scope`, `--domain`, `--allowed-tenant`, `--accept-amr`, `--accept-acr`,
 *   `--map-group <upstream>=<group>`) replace the whole list on update; `--claim <field>=<claim>`
 *   names one claim (fields: subject, username, email, email_verified, name, groups) and keeps the others;
 * - on update, `--no-...` removes an optional setting and `--clear-...` empties a list;
 * - a file that cannot be read, a private key that is not JSON, a malformed `--map-group` or
 *   `--claim`, and contradicting options are usage errors (exit 2); the service's refusals exit 1
 *   naming the field;
 * - `--json` prints the admin API's body (admin/json/identity-provider-json.ts): a provider, a
 *   list as `{ items, next }` (`next` null: every provider at once).
 */
import { readFileSync } from 'node:fs';
import { CLI_OPERATOR } from '../audit/actor.ts';
import { identityProviderJson } from '../admin/json/identity-provider-json.ts';
import {
  IDP_AUTH_METHODS,
  IDP_KINDS,
  IDP_PRESETS,
  MFA_POLICIES,
  PROVISIONING_MODES,
  type ClaimMapping,
  type GroupMapping,
  type IdentityProvider,
  type IdpAuthMethod,
  type IdpPresetName,
  type IdentityProviderKind,
  type MfaPolicy,
  type ProvisioningMode,
} from '../federation/identity-provider.ts';
import type { IdentityProviderChanges, NewIdentityProvider } from '../federation/identity-provider-service.ts';
import { federatedCallbackUrl } from '../federation/callback-url.ts';
import { parseCommand, UsageError, type OptionSpec } from './args.ts';
import type { CliContext } from './cli-context.ts';
import { printTable } from './table.ts';

export const IDP_USAGE = [
  '  idp add <slug> --client-id <id> [--preset google|microsoft|github|oidc|oauth2] [--tenant <tenant>] [--kind oidc|oauth2]',
  '             [--client-secret-stdin | --client-secret-file <path> | --client-secret <secret>] [--private-key-file <jwk.json>]',
  '             [--auth-method client_secret_basic|client_secret_post|private_key_jwt] [--name <display name>] [--disabled]',
  '             [--issuer <url>] [--issuer-template <url with {tenantid}>] [--allowed-tenant <id> ...]',
  '             [--authorization-endpoint <url>] [--token-endpoint <url>] [--userinfo-endpoint <url>] [--emails-endpoint <url>]',
  '             [--scope <scope> ...] [--userinfo | --no-userinfo] [--claim <field>=<claim> ...] [--trust-email]',
  '             [--map-group <upstream>=<group> ...] [--provisioning just_in_time|invited_only]',
  '             [--mfa trust_upstream|always_local] [--accept-amr <value> ...] [--accept-acr <value> ...] [--domain <domain> ...] [--json]',
  '  idp list [--json]',
  '  idp show <slug> [--json]',
  '  idp update <slug> [the options of add but --preset, --tenant, --kind] [--enable | --disable] [--no-trust-email]',
  '             [--no-issuer-template] [--no-allowed-tenants] [--no-emails-endpoint] [--no-groups-claim]',
  '             [--clear-group-mappings] [--clear-domains] [--clear-accept-amr] [--clear-accept-acr] [--json]',
  '             the secret is never printed; --client-secret-stdin reads it from standard input',
  '  idp remove <slug>',
];

export async function runIdpCommand(sub: string | undefined, args: readonly string[], ctx: CliContext): Promise<void> {
  switch (sub) {
    case 'add':
      return addProvider(args, ctx);
    case 'list':
      return listProviders(args, ctx);
    case 'show':
      return showProvider(args, ctx);
    case 'update':
      return updateProvider(args, ctx);
    case 'remove':
      return removeProvider(args, ctx);
    default:
      throw new UsageError(sub ? `unknown command "idp ${sub}"` : 'idp: missing subcommand (add, list, show, update, remove)');
  }
}

/** The options add and update share. */
const SETTINGS_OPTIONS = {
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'client-secret-stdin': { type: 'boolean' },
  'client-secret-file': { type: 'string' },
  'private-key-file': { type: 'string' },
  'auth-method': { type: 'string' },
  name: { type: 'string' },
  issuer: { type: 'string' },
  'issuer-template': { type: 'string' },
  'allowed-tenant': { type: 'string', multiple: true },
  'authorization-endpoint': { type: 'string' },
  'token-endpoint': { type: 'string' },
  'userinfo-endpoint': { type: 'string' },
  'emails-endpoint': { type: 'string' },
  scope: { type: 'string', multiple: true },
  userinfo: { type: 'boolean' },
  'no-userinfo': { type: 'boolean' },
  claim: { type: 'string', multiple: true },
  'trust-email': { type: 'boolean' },
  'map-group': { type: 'string', multiple: true },
  provisioning: { type: 'string' },
  mfa: { type: 'string' },
  'accept-amr': { type: 'string', multiple: true },
  'accept-acr': { type: 'string', multiple: true },
  domain: { type: 'string', multiple: true },
  json: { type: 'boolean' },
} as const satisfies Record<string, OptionSpec>;

type SettingsValues = ReturnType<typeof parseCommand<typeof SETTINGS_OPTIONS>>['values'];

const CLAIM_FIELDS: Readonly<Record<string, keyof ClaimMapping>> = { subject: 'subject', username: 'username', email: 'email', email_verified: 'emailVerified', name: 'name', groups: 'groups' };

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], command: string, flag: string): T | undefined {
  if (value !== undefined && !(allowed as readonly string[]).includes(value)) throw new UsageError(`${command}: --${flag} must be one of ${allowed.join(', ')}`);
  return value as T | undefined;
}

/** A file's text, one trailing newline dropped; a usage error naming the option when it cannot be read. */
function readText(path: string, command: string, flag: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch {
    throw new UsageError(`${command}: --${flag}: cannot read the file "${path}"`);
  }
}

/** The secret of exactly one of --client-secret-stdin, --client-secret-file and --client-secret; undefined for none. */
function clientSecretOption(values: SettingsValues, ctx: CliContext, command: string): string | undefined {
  const given = [values['client-secret-stdin'] ? 'stdin' : undefined, values['client-secret-file'], values['client-secret']].filter((v) => v !== undefined);
  if (given.length > 1) throw new UsageError(`${command}: give the client secret once: --client-secret-stdin, --client-secret-file or --client-secret`);
  if (values['client-secret-stdin']) {
    const secret = ctx.io.stdin.replace(/\r?\n$/, '');
    if (secret === '') throw new UsageError(`${command}: --client-secret-stdin: standard input is empty`);
    return secret;
  }
  if (values['client-secret-file'] !== undefined) return readText(values['client-secret-file'], command, 'client-secret-file');
  return values['client-secret'];
}

function privateKeyOption(values: SettingsValues, command: string): unknown {
  const file = values['private-key-file'];
  if (file === undefined) return undefined;
  const text = readText(file, command, 'private-key-file');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${command}: --private-key-file: the file "${file}" is not JSON (expected a private JWK)`);
  }
}

function claimsOption(values: SettingsValues, command: string): Partial<ClaimMapping> | undefined {
  if (values.claim === undefined) return undefined;
  const claims: Partial<ClaimMapping> = {};
  for (const pair of values.claim) {
    const at = pair.indexOf('=');
    const field = CLAIM_FIELDS[pair.slice(0, at)];
    if (at < 1 || field === undefined || at === pair.length - 1) {
      throw new UsageError(`${command}: --claim must be <field>=<claim>, field one of ${Object.keys(CLAIM_FIELDS).join(', ')} (e.g. --claim username=preferred_username)`);
    }
    claims[field] = pair.slice(at + 1);
  }
  return claims;
}

function groupMappingsOption(values: SettingsValues, command: string): GroupMapping[] | undefined {
  return values['map-group']?.map((pair) => {
    const at = pair.lastIndexOf('=');
    if (at < 1 || at === pair.length - 1) throw new UsageError(`${command}: --map-group must be <upstream group>=<Gatehouse group> (e.g. --map-group "Acme Admins=admins")`);
    return { upstream: pair.slice(0, at), group: pair.slice(at + 1) };
  });
}

function flagPair(values: Record<string, unknown>, on: string, off: string, command: string): boolean | undefined {
  if (values[on] && values[off]) throw new UsageError(`${command}: --${on} and --${off} exclude each other`);
  return values[on] ? true : values[off] ? false : undefined;
}

/** The settings both add and update take, by the service's names. */
type CliSettings = { [K in Exclude<keyof NewIdentityProvider, 'slug' | 'preset' | 'kind' | 'tenant' | 'enabled'>]?: NewIdentityProvider[K] };

/** The settings both add and update take, as the service's names; absent options are absent. */
function settingsOptions(values: SettingsValues, ctx: CliContext, command: string): CliSettings {
  const clientSecret = clientSecretOption(values, ctx, command);
  const privateJwk = privateKeyOption(values, command);
  const claims = claimsOption(values, command);
  const groupMappings = groupMappingsOption(values, command);
  const useUserinfo = flagPair(values, 'userinfo', 'no-userinfo', command);
  const authMethod = oneOf<IdpAuthMethod>(values['auth-method'], IDP_AUTH_METHODS, command, 'auth-method');
  const provisioning = oneOf<ProvisioningMode>(values.provisioning, PROVISIONING_MODES, command, 'provisioning');
  const mfaPolicy = oneOf<MfaPolicy>(values.mfa, MFA_POLICIES, command, 'mfa');
  const settings: CliSettings = {
    clientId: values['client-id'],
    clientSecret,
    privateJwk,
    tokenEndpointAuthMethod: authMethod,
    displayName: values.name,
    issuer: values.issuer,
    issuerTemplate: values['issuer-template'],
    allowedTenants: values['allowed-tenant'],
    authorizationEndpoint: values['authorization-endpoint'],
    tokenEndpoint: values['token-endpoint'],
    userinfoEndpoint: values['userinfo-endpoint'],
    emailsEndpoint: values['emails-endpoint'],
    scopes: values.scope,
    useUserinfo,
    claims,
    trustEmail: values['trust-email'] ? true : undefined,
    groupMappings,
    provisioning,
    mfaPolicy,
    mfaAcceptedAmr: values['accept-amr'],
    mfaAcceptedAcr: values['accept-acr'],
    homeRealmDomains: values.domain,
  };
  // Absent options stay absent: the service tells an absent member from one given.
  return Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)) as CliSettings;
}

async function addProvider(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'idp add';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['slug'],
    options: { ...SETTINGS_OPTIONS, preset: { type: 'string' }, tenant: { type: 'string' }, kind: { type: 'string' }, disabled: { type: 'boolean' } },
  });
  const preset = oneOf<IdpPresetName>(values.preset, IDP_PRESETS, command, 'preset');
  const kind = oneOf<IdentityProviderKind>(values.kind, IDP_KINDS, command, 'kind');
  const { clientId, ...settings } = settingsOptions(values, ctx, command);
  if (clientId === undefined) throw new UsageError(`${command}: missing required option --client-id (the client id the upstream provider issued to Gatehouse)`);
  const input: NewIdentityProvider = {
    slug: positionals[0]!,
    clientId,
    ...settings,
    ...(preset !== undefined ? { preset } : {}),
    ...(kind !== undefined ? { kind } : {}),
    ...(values.tenant !== undefined ? { tenant: values.tenant } : {}),
    ...(values.disabled ? { enabled: false } : {}),
  };
  const created = await (await ctx.identityProviders()).create(CLI_OPERATOR, input);
  if (values.json) {
    ctx.printJson(identityProviderJson(created));
    return;
  }
  ctx.print(`created identity provider ${created.slug} (${created.kind}, preset ${created.preset})${created.enabled ? '' : ', disabled'}`);
  ctx.print(`Register this redirect URI at the upstream provider: ${federatedCallbackUrl(ctx.config.issuer, created.slug)}`);
}

async function listProviders(args: readonly string[], ctx: CliContext): Promise<void> {
  const { values } = parseCommand(args, { command: 'idp list', positionals: [], options: { json: { type: 'boolean' } } });
  const { items } = await (await ctx.identityProviders()).list();
  if (values.json) {
    ctx.printJson({ items: items.map(identityProviderJson), next: null });
    return;
  }
  if (items.length === 0) {
    ctx.print('no identity providers');
    return;
  }
  printTable(
    ctx,
    ['SLUG', 'NAME', 'KIND', 'PRESET', 'ENABLED', 'PROVISIONING', 'DOMAINS'],
    items.map((p) => [p.slug, p.displayName, p.kind, p.preset, p.enabled ? 'yes' : 'no', p.provisioning, p.homeRealmDomains.join(',')]),
  );
}

async function showProvider(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals, values } = parseCommand(args, { command: 'idp show', positionals: ['slug'], options: { json: { type: 'boolean' } } });
  const provider = await (await ctx.identityProviders()).get(positionals[0]!);
  if (values.json) {
    ctx.printJson(identityProviderJson(provider));
    return;
  }
  printProvider(ctx, provider);
}

function printProvider(ctx: CliContext, p: IdentityProvider): void {
  const list = (values: readonly string[]) => (values.length ? values.join(' ') : '-');
  const rows: Array<[string, string | undefined]> = [
    ['slug', p.slug],
    ['display_name', p.displayName],
    ['kind', p.kind],
    ['preset', p.preset],
    ['enabled', p.enabled ? 'yes' : 'no'],
    ['issuer', p.issuer],
    ['issuer_template', p.issuerTemplate],
    ['allowed_tenants', p.allowedTenants?.join(' ')],
    ['authorization_endpoint', p.authorizationEndpoint],
    ['token_endpoint', p.tokenEndpoint],
    ['userinfo_endpoint', p.userinfoEndpoint],
    ['emails_endpoint', p.emailsEndpoint],
    ['client_id', p.clientId],
    ['client_secret', p.clientSecretSet ? 'set (sealed, not shown)' : 'none'],
    ['token_endpoint_auth_method', p.tokenEndpointAuthMethod],
    ['private_key', p.tokenEndpointAuthMethod === 'private_key_jwt' ? (p.privateKeySet ? 'set (sealed, not shown)' : 'none') : undefined],
    ['scopes', list(p.scopes)],
    ['use_userinfo', p.useUserinfo ? 'yes' : 'no'],
    ['claims', Object.entries(CLAIM_FIELDS).flatMap(([name, key]) => (p.claims[key] === undefined ? [] : [`${name}=${p.claims[key]}`])).join(' ')],
    ['trust_email', p.trustEmail ? 'yes' : 'no'],
    ['group_mappings', p.groupMappings.length ? p.groupMappings.map((m) => `${m.upstream}=${m.group}`).join(', ') : '-'],
    ['provisioning', p.provisioning],
    ['mfa_policy', p.mfaPolicy],
    ['mfa_accepted_amr', p.mfaPolicy === 'trust_upstream' ? list(p.mfaAcceptedAmr) : undefined],
    ['mfa_accepted_acr', p.mfaPolicy === 'trust_upstream' ? list(p.mfaAcceptedAcr) : undefined],
    ['home_realm_domains', list(p.homeRealmDomains)],
    ['created_at', new Date(p.createdAt).toISOString()],
    ['updated_at', p.updatedAt === undefined ? undefined : new Date(p.updatedAt).toISOString()],
  ];
  for (const [key, value] of rows) if (value !== undefined) ctx.print(`${key}: ${value}`);
}

async function updateProvider(args: readonly string[], ctx: CliContext): Promise<void> {
  const command = 'idp update';
  const { positionals, values } = parseCommand(args, {
    command,
    positionals: ['slug'],
    options: {
      ...SETTINGS_OPTIONS,
      enable: { type: 'boolean' },
      disable: { type: 'boolean' },
      'no-trust-email': { type: 'boolean' },
      'no-issuer-template': { type: 'boolean' },
      'no-allowed-tenants': { type: 'boolean' },
      'no-emails-endpoint': { type: 'boolean' },
      'no-groups-claim': { type: 'boolean' },
      'clear-group-mappings': { type: 'boolean' },
      'clear-domains': { type: 'boolean' },
      'clear-accept-amr': { type: 'boolean' },
      'clear-accept-acr': { type: 'boolean' },
    },
  });
  const settings = settingsOptions(values, ctx, command);
  const enabled = flagPair(values, 'enable', 'disable', command);
  const trustEmail = flagPair(values, 'trust-email', 'no-trust-email', command);
  /** `--<set>` or `--<unset>`: a value, null to remove, or undefined. */
  const either = <T>(set: keyof typeof values, unset: keyof typeof values, value: T | undefined, removed: T | null): T | null | undefined => {
    if (values[set] !== undefined && values[unset]) throw new UsageError(`${command}: --${String(set)} and --${String(unset)} exclude each other`);
    return values[unset] ? removed : value;
  };
  const issuerTemplate = either('issuer-template', 'no-issuer-template', settings.issuerTemplate, null);
  const allowedTenants = either('allowed-tenant', 'no-allowed-tenants', settings.allowedTenants, null);
  const emailsEndpoint = either('emails-endpoint', 'no-emails-endpoint', settings.emailsEndpoint, null);
  const groupMappings = either('map-group', 'clear-group-mappings', settings.groupMappings, []);
  const homeRealmDomains = either('domain', 'clear-domains', settings.homeRealmDomains, []);
  const mfaAcceptedAmr = either('accept-amr', 'clear-accept-amr', settings.mfaAcceptedAmr, []);
  const mfaAcceptedAcr = either('accept-acr', 'clear-accept-acr', settings.mfaAcceptedAcr, []);
  if (values['no-groups-claim'] && settings.claims?.groups !== undefined) throw new UsageError(`${command}: --claim groups=... and --no-groups-claim exclude each other`);
  const claims = values['no-groups-claim'] ? { ...settings.claims, groups: null } : settings.claims;
  const changes: IdentityProviderChanges = {
    ...settings,
    ...(enabled !== undefined ? { enabled } : {}),
    ...(trustEmail !== undefined ? { trustEmail } : {}),
    ...(issuerTemplate !== undefined ? { issuerTemplate } : {}),
    ...(allowedTenants !== undefined ? { allowedTenants } : {}),
    ...(emailsEndpoint !== undefined ? { emailsEndpoint } : {}),
    ...(groupMappings != null ? { groupMappings } : {}),
    ...(homeRealmDomains != null ? { homeRealmDomains } : {}),
    ...(mfaAcceptedAmr != null ? { mfaAcceptedAmr } : {}),
    ...(mfaAcceptedAcr != null ? { mfaAcceptedAcr } : {}),
    ...(claims !== undefined ? { claims } : {}),
  };
  if (Object.keys(changes).length === 0) throw new UsageError(`${command}: nothing to update (give a setting, --enable / --disable, or a new client secret or private key)`);
  const updated = await (await ctx.identityProviders()).update(CLI_OPERATOR, positionals[0]!, changes);
  if (values.json) {
    ctx.printJson(identityProviderJson(updated));
    return;
  }
  ctx.print(`updated identity provider ${updated.slug}`);
  printProvider(ctx, updated);
}

async function removeProvider(args: readonly string[], ctx: CliContext): Promise<void> {
  const { positionals } = parseCommand(args, { command: 'idp remove', positionals: ['slug'], options: {} });
  await (await ctx.identityProviders()).remove(CLI_OPERATOR, positionals[0]!);
  ctx.print(`removed identity provider ${positionals[0]!}`);
}
