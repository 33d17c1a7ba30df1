/**
 * A real upstream OpenID Connect provider for the federation tests: an oidc-provider instance
 * (its in-memory adapter) on a random loopback port, with its own users and its own login page.
 * Rules of this test double:
 * - one confidential client (client_secret_basic), PKCE required, code flow only;
 * - GET /interaction/<uid> is its login page (username + password); a right password ends the
 *   interaction logged in with the user's `amr` and `acr`, and the client's grant is given
 *   without a consent page; a wrong one shows the page again with 401;
 * - POST /interaction/<uid>/abort ends it with access_denied (the user cancelled there);
 * - the ID token carries the profile, e-mail and `groups` claims of the user;
 * - `issuer` gives it another issuer than its own address, and `discovery` serves a discovery
 *   document of its own at another path naming another issuer (Entra ID's multi-tenant
 *   `https://login.microsoftonline.com/{tenantid}/v2.0`), with its endpoints on the issuer's origin:
 *   the test routes that origin here through the fetch it gives Gatehouse;
 * - a user's `extraClaims` (e.g. Entra's `tid`) go into the ID token with the openid scope;
 * - `tamperNonce` rewrites the nonce of the next authorization request (an ID token minted for
 *   another sign-in); `close()` takes it down (the upstream unreachable).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

export interface UpstreamUser {
  sub: string;
  username: string;
  password: string;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  groups?: string[];
  amr?: string[];
  acr?: string;
  /** More ID-token claims (openid scope), e.g. Entra's `tid`. */
  extraClaims?: Record<string, unknown>;
}

export interface UpstreamOidc {
  issuer: string;
  /** Where it listens (http://127.0.0.1:<port>), whatever its issuer says. */
  origin: string;
  client: { clientId: string; clientSecret: string };
  users: Map<string, UpstreamUser>;
  addUser(user: Partial<UpstreamUser> & { username: string }): UpstreamUser;
  /** The next authorization request's nonce is replaced by this one. */
  tamperNonce(nonce: string): void;
  close(): Promise<void>;
}

const escape = (value: string): string => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(uid: string, error?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Upstream sign-in</title></head>
<body><main>
<h1>Upstream IdP</h1>
${error ? `<p role="alert">${escape(error)}</p>` : ''}
<form method="post" action="/interaction/${escape(uid)}/login">
<label for="up-username">Upstream username</label>
<input id="up-username" name="username" autocomplete="username" required autofocus>
<label for="up-password">Upstream password</label>
<input id="up-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" id="up-submit">Sign in upstream</button>
</form>
<form method="post" action="/interaction/${escape(uid)}/abort"><button type="submit" id="up-cancel">Cancel</button></form>
</main></body></html>`;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** `redirectUris`: the callback(s) Gatehouse registers here. `host`: the loopback name to serve under. */
export async function startUpstreamOidc(options: { redirectUris: string[]; host?: string; issuer?: string; discovery?: { path: string; issuer: string } }): Promise<UpstreamOidc> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const issuer = options.issuer ?? `http://${options.host ?? '127.0.0.1'}:${port}`;
  const routes = { authorization: '/auth', token: '/token', jwks: '/jwks', userinfo: '/me' };
  const client = { clientId: 'gatehouse', clientSecret: randomBytes(24).toString('base64url') };
  const users = new Map<string, UpstreamUser>();
  let nextNonce: string | undefined;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'upstream-1', use: 'sig', alg: 'RS256' };

  const configuration: Configuration = {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    pkce: { required: () => true },
    routes,
    claims: { openid: ['sub', 'amr', 'acr', 'tid'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
    // The claims go into the ID token, as many providers put them there.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false }, userinfo: { enabled: true } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const user = [...users.values()].find((candidate) => candidate.sub === sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        async claims() {
          return {
            sub,
            preferred_username: user.username,
            ...(user.email ? { email: user.email, email_verified: user.emailVerified ?? false } : {}),
            ...(user.name ? { name: user.name } : {}),
            ...(user.groups ? { groups: user.groups } : {}),
            ...user.extraClaims,
          };
        },
      };
    },
    // No consent page: the client is the upstream operator's own.
    async loadExistingGrant(ctx) {
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId || !ctx.oidc.client) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
      grant.addOIDCScope('openid email profile groups');
      await grant.save();
      return grant;
    },
  };
  const provider = new Provider(issuer, configuration);
  const handle = provider.callback();

  server.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    try {
      if (options.discovery && url.pathname === options.discovery.path) {
        const at = new URL(issuer).origin;
        const doc = {
          issuer: options.discovery.issuer,
          authorization_endpoint: `${at}${routes.authorization}`,
          token_endpoint: `${at}${routes.token}`,
          jwks_uri: `${at}${routes.jwks}`,
          userinfo_endpoint: `${at}${routes.userinfo}`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['client_secret_basic'],
        };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
        return;
      }
      const interaction = /^\/interaction\/([^/]+)(\/login|\/abort)?$/.exec(url.pathname);
      if (interaction) {
        const details = await provider.interactionDetails(req, res);
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(details.uid));
          return;
        }
        if (interaction[2] === '/abort') {
          await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'The user cancelled.' }, { mergeWithLastSubmission: false });
          return;
        }
        const body = await readForm(req);
        const user = users.get(body.get('username') ?? '');
        if (!user || user.password !== body.get('password')) {
          res.writeHead(401, { 'content-type': 'text/html; charset=utf-8' }).end(loginPage(details.uid, 'Wrong upstream username or password.'));
          return;
        }
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: user.sub, ...(user.amr ? { amr: user.amr } : {}), ...(user.acr ? { acr: user.acr } : {}) } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      if (url.pathname === '/auth' && nextNonce !== undefined && url.searchParams.has('nonce')) {
        url.searchParams.set('nonce', nextNonce);
        nextNonce = undefined;
        req.url = `${url.pathname}${url.search}`;
      }
      handle(req, res);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  });

  let n = 0;
  return {
    issuer,
    origin,
    client,
    users,
    addUser(user) {
      n += 1;
      const full: UpstreamUser = { sub: `upstream-${n}-${randomBytes(3).toString('hex')}`, password: randomBytes(9).toString('base64url'), ...user };
      users.set(full.username, full);
      return full;
    },
    tamperNonce(nonce) {
      nextNonce = nonce;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
