/**
 * A small HTTP server answering like GitHub's OAuth app endpoints (GitHub itself cannot be
 * reached from here), for the OAuth 2.0 federation tests. Rules of this test double:
 * - GET /login/oauth/authorize: the signed-in GitHub user (`signIn`) approves at once: 302 to
 *   the redirect URI with a one-time `code` and the `state`; `deny()` answers error=access_denied;
 * - POST /login/oauth/access_token: client_secret_post credentials, the code once, the same
 *   redirect_uri and a PKCE S256 verifier; JSON `{ access_token, token_type, scope }`, or, as
 *   GitHub does, a 200 with `error` for a bad code;
 * - GET /user and /user/emails with the bearer token: the user object (numeric `id`, `login`,
 *   `name`, the public `email`) and the address list with `primary` and `verified`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes } from 'node:crypto';

export interface GithubUser {
  id: number;
  login: string;
  name: string | null;
  /** The public e-mail of the profile (may be unverified, or null). */
  email: string | null;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

export interface UpstreamGithub {
  base: string;
  client: { clientId: string; clientSecret: string };
  endpoints: { authorizationEndpoint: string; tokenEndpoint: string; userinfoEndpoint: string; emailsEndpoint: string };
  /** The GitHub user whose browser approves the next authorization. */
  signIn(user: GithubUser): void;
  /** The next authorization is refused by the user. */
  deny(): void;
  /** Requests received, by path (to assert what was sent). */
  requests: { path: string; body?: string; authorization?: string }[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startUpstreamGithub(): Promise<UpstreamGithub> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = { clientId: `Iv1.${randomBytes(8).toString('hex')}`, clientSecret: randomBytes(20).toString('hex') };
  const codes = new Map<string, { user: GithubUser; redirectUri: string; challenge: string }>();
  const tokens = new Map<string, GithubUser>();
  const requests: UpstreamGithub['requests'] = [];
  let current: GithubUser | undefined;
  let denied = false;

  const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));

  server.on('request', async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    requests.push({ path: url.pathname, ...(body ? { body } : {}), ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) });
    if (url.pathname === '/login/oauth/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state');
      if (denied || !current) {
        denied = false;
        redirect.search = new URLSearchParams({ error: 'access_denied', error_description: 'The user has denied your application access.', ...(state ? { state } : {}) }).toString();
      } else {
        const code = randomBytes(10).toString('hex');
        codes.set(code, { user: current, redirectUri: redirect.href, challenge: url.searchParams.get('code_challenge') ?? '' });
        redirect.search = new URLSearchParams({ code, ...(state ? { state } : {}) }).toString();
      }
      res.writeHead(302, { location: redirect.href }).end();
      return;
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = new URLSearchParams(body);
      if (form.get('client_id') !== client.clientId || form.get('client_secret') !== client.clientSecret) return json(res, 401, { error: 'incorrect_client_credentials' });
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!grant || grant.redirectUri !== form.get('redirect_uri') || grant.challenge !== challenge) {
        return json(res, 200, { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
      }
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, grant.user);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /i, ''));
    if (url.pathname === '/user') return user ? json(res, 200, { id: user.id, login: user.login, name: user.name, email: user.email, type: 'User' }) : json(res, 401, { message: 'Bad credentials' });
    if (url.pathname === '/user/emails') return user ? json(res, 200, user.emails.map((e) => ({ ...e, visibility: e.primary ? 'public' : null }))) : json(res, 401, { message: 'Bad credentials' });
    json(res, 404, { message: 'Not Found' });
  });

  return {
    base,
    client,
    endpoints: {
      authorizationEndpoint: `${base}/login/oauth/authorize`,
      tokenEndpoint: `${base}/login/oauth/access_token`,
      userinfoEndpoint: `${base}/user`,
      emailsEndpoint: `${base}/user/emails`,
    },
    signIn(user) {
      current = user;
    },
    deny() {
      denied = true;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
