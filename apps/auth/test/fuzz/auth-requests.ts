/**
 * Request arbitraries for the authorization server, built from the shared hostile parts
 * (@gatehouse/fuzz) and the real fixtures of auth-fuzz-server.ts. Rules:
 * - OAuth parameters come in their attack variants: redirect_uri (trailing slash, other host,
 *   userinfo@, fragment, encoded, another client's), PKCE downgrade (plain, no challenge, no or a
 *   wrong verifier), odd response_type / response_mode / prompt, `request` / `request_uri`,
 *   grant types with and without client authentication (malformed Basic, two Authorization
 *   headers, secret in the body as well), and any parameter may be repeated;
 * - cookies are the fixtures' real ones, tampered (cookieHeaders), stale (a finished
 *   interaction), or forged with a valid signature over a junk value;
 * - a request is never one that would legitimately stay open: the revocation feed's and the
 *   authenticator's event streams are only ever asked for with credentials that fail;
 * - the unused code's PKCE verifier is never sent, so the code cannot be redeemed by chance.
 */
import { KNOWN_DEVICE_COOKIE } from '../../src/regulation/known-device.ts';
import { AUTH_STATIC_ASSETS } from '../../src/views/static-assets.ts';
import {
  anyText,
  asciiText,
  bodyCase,
  cookieHeaders,
  encodeURIComponentLoose,
  fc,
  fuzzRequest,
  headerSet,
  oddNumbers,
  PROTOTYPE_NAMES,
  queryValue,
  type FuzzRequest,
  type RouteSpec,
} from '@gatehouse/fuzz';
import type { AuthFixtures, Cookie, PasskeyAnswerFor } from './auth-fuzz-server.ts';

type Pair = readonly [string, string];
type Headers = readonly (readonly [string, string])[];

const OTHER_CLIENT_REDIRECT = 'http://127.0.0.1:7/callback';

/** redirect_uri variants around the registered one. */
function redirectUri(registered: string): fc.Arbitrary<string> {
  const url = new URL(registered);
  const hostPort = url.host;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(registered) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `${registered}/`,
        `${registered}#frag`,
        `${registered}?x=1`,
        `${registered}%2F..%2Fevil`,
        `${registered}/../evil`,
        registered.toUpperCase(),
        registered.replace('http:', 'https:'),
        registered.replace(hostPort, 'evil.example'),
        registered.replace(hostPort, `${hostPort}@evil.example`),
        registered.replace(hostPort, `evil.example@${hostPort}`),
        registered.replace(hostPort, `${hostPort}\\@evil.example`),
        registered.replace(hostPort, `${url.hostname}:99`),
        registered.replace(hostPort, 'localhost:9'),
        registered.replace('127.0.0.1', '127.1'),
        registered.replace('127.0.0.1', '0x7f.0.0.1'),
        registered.replace('http://', '//'),
        registered.replace('http://', 'http:/'),
        registered.replace('/callback', '/CALLBACK'),
        registered.replace('/callback', '/callback;x'),
        encodeURIComponent(registered),
        `${registered}\u0000`,
        `${registered}\u2028`,
        'javascript:alert(1)',
        'data:text/html,<script>alert(1)</script>',
        'urn:ietf:wg:oauth:2.0:oob',
        '',
        'http://127.0.0.1:9',
        OTHER_CLIENT_REDIRECT,
        'https://evil.example/callback',
        'http://[::1]:9/callback',
        'http://ｅｖｉｌ.example/callback',
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 2_000, max: 9_000 }).map((n) => `${registered}?${'a'.repeat(n)}`) },
    { weight: 1, arbitrary: anyText(20) },
  );
}

const S256_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** PKCE parameters at the authorization endpoint, downgrades included. */
const pkceParams: fc.Arbitrary<Pair[]> = fc.constantFrom<Pair[]>(
  [],
  [['code_challenge', S256_CHALLENGE], ['code_challenge_method', 'S256']],
  [['code_challenge', S256_CHALLENGE]],
  [['code_challenge', S256_CHALLENGE], ['code_challenge_method', 'plain']],
  [['code_challenge', 'short'], ['code_challenge_method', 'S256']],
  [['code_challenge', 'a'.repeat(200)], ['code_challenge_method', 'S256']],
  [['code_challenge_method', 'S256']],
  [['code_challenge', S256_CHALLENGE], ['code_challenge_method', 's256']],
  [['code_challenge', S256_CHALLENGE], ['code_challenge_method', 'S512']],
  [['code_challenge', S256_CHALLENGE], ['code_challenge_method', '']],
  [['code_challenge', ''], ['code_challenge_method', 'S256']],
  [['code_challenge', S256_CHALLENGE], ['code_challenge', S256_CHALLENGE], ['code_challenge_method', 'S256']],
);

/** A JWT-looking string: unsigned, garbage, or a real token of the fixtures. */
function jwtLike(real: readonly string[]): fc.Arbitrary<string> {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return fc.oneof(
    ...(real.length > 0 ? [fc.constantFrom(...real)] : []),
    fc.constantFrom(
      `${b64({ alg: 'none' })}.${b64({ iss: 'x', aud: 'test-app', client_id: 'test-app', redirect_uri: 'https://evil.example/cb', response_type: 'code' })}.`,
      `${b64({ alg: 'HS256' })}.${b64({ sub: '1' })}.c2ln`,
      `${b64({ alg: 'RS256', kid: '../../etc/passwd' })}.${b64({ sub: '1' })}.c2ln`,
      `${b64({ alg: 'RS256', jku: 'https://evil.example/jwks' })}.${b64({})}.x`,
      'a.b.c',
      'a.b.c.d.e',
      '....',
      'eyJ9',
    ),
    asciiText(60),
  );
}

/** Joins pairs into a query or form body; values usually encoded, sometimes raw. */
function joinPairs(pairs: readonly Pair[], raw: boolean): string {
  return pairs.map(([k, v]) => `${encodeURIComponentLoose(k)}=${raw ? v.replace(/[&#\s]/g, encodeURIComponent) : encodeURIComponentLoose(v)}`).join('&');
}

/** Pairs with, sometimes, one of them repeated (same or another value) and the order shuffled. */
function withRepeats(pairs: fc.Arbitrary<Pair[]>): fc.Arbitrary<Pair[]> {
  return fc.tuple(pairs, fc.nat(), fc.nat({ max: 8 }), queryValue).map(([list, pick, mode, other]) => {
    if (list.length === 0 || mode > 1) return list;
    const [name, value] = list[pick % list.length]!;
    return [...list, [name, mode === 0 ? value : other] as Pair];
  });
}

/** Optional pairs: each present or not. */
function someOf(entries: readonly fc.Arbitrary<Pair[]>[]): fc.Arbitrary<Pair[]> {
  return fc.tuple(...entries.map((e) => fc.option(e, { freq: 3 }))).map((parts) => parts.flatMap((p) => p ?? []));
}

const one = (name: string, value: fc.Arbitrary<string>): fc.Arbitrary<Pair[]> => value.map((v) => [[name, v] as Pair]);

/** Present one time in five. */
const rarely = <T,>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

function cookieLine(cookies: readonly Cookie[]): Headers {
  return cookies.length > 0 ? [['Cookie', cookies.map(([n, v]) => `${n}=${v}`).join('; ')]] : [];
}

/**
 * `gatehouse.device` cookie lines (regulation/known-device.ts): the real token, its MAC or expiry
 * changed, an expired or another account's token with a valid MAC, garbage, over-long, many
 * tokens in one value, or the cookie several times.
 */
function knownDeviceCookie(fx: AuthFixtures): fc.Arbitrary<Headers> {
  const { real, expired, otherAccount } = fx.device;
  const [id, expiry, mac] = real.split('.') as [string, string, string];
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constant(real) },
    {
      weight: 6,
      arbitrary: fc.constantFrom(
        `${id}.${expiry}.${mac.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`,
        `${id}.${Number(expiry) + 1}.${mac}`,
        `${id}.${expiry}.${mac.slice(0, -1)}`,
        `${id}x.${expiry}.${mac}`,
        `${id}.99999999999999999.${mac}`,
        `${id}.-1.${mac}`,
        expired,
        otherAccount,
        `${otherAccount}~${real}`,
        `${expired}~${expired}~${expired}~${expired}~${expired}~${real}`,
        Array.from({ length: 120 }, () => real).join('~'),
        Array.from({ length: 400 }, () => '~').join(''),
        `"${real}"`,
        encodeURIComponent(real),
        `${real}~`,
        '',
        '~',
        '..',
        '__proto__',
        'x'.repeat(12_000),
      ),
    },
    { weight: 2, arbitrary: asciiText(60).map((v) => v.replace(/[;,\s"\\]/g, '')) },
  );
  return fc.oneof(
    { weight: 4, arbitrary: value.map((v): Headers => [['Cookie', `${KNOWN_DEVICE_COOKIE}=${v}`]]) },
    { weight: 1, arbitrary: fc.array(value, { minLength: 2, maxLength: 6 }).map((vs): Headers => [['Cookie', vs.map((v) => `${KNOWN_DEVICE_COOKIE}=${v}`).join('; ')]]) },
  );
}

const b64urlGarbage: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{0,80}$/) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>('', '!!!', 'a+b/c==', 'AAAA====', ' AAAA', 'AA AA', '%41%41', '\u00e9', 'A'.repeat(13_000), 'eyJ9', Buffer.from('{"challenge":1}').toString('base64url'), Buffer.from('{"challenge":"' + 'A'.repeat(300) + '"}').toString('base64url'), Buffer.from('not json').toString('base64url'), Buffer.from('{"__proto__":{"challenge":"x"}}').toString('base64url')),
  },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, 0, -1, 1e308, true, [], ['AAAA'], {}, { challenge: 'x' }) },
);

const CREDENTIAL_FIELDS = ['id', 'rawId', 'type', 'response', 'clientDataJSON', 'authenticatorData', 'signature', 'userHandle', 'attestationObject', 'transports'] as const;

/**
 * A passkey answer (the `credential` field, JSON text): a refused answer to a live challenge
 * (auth-fuzz-server.ts), as it is or mutated: a member replaced by base64url garbage or a wrong
 * type or removed, the whole text truncated, not JSON, another JSON type, over-long, or deeply
 * nested.
 */
function passkeyCredential(fx: AuthFixtures, kinds: readonly PasskeyAnswerFor[]): fc.Arbitrary<string> {
  const base = fc.tuple(fc.constantFrom(...kinds), fc.nat(), fc.nat()).map(([kind, pick, variant]) => fx.passkey.answer(kind, pick, variant));
  const mutated = fc.tuple(base, fc.constantFrom(...CREDENTIAL_FIELDS), b64urlGarbage, fc.boolean()).map(([text, field, junk, remove]) => {
    const json = JSON.parse(text) as Record<string, unknown> & { response: Record<string, unknown> };
    const holder: Record<string, unknown> = Object.hasOwn(json, field) ? json : json.response;
    if (remove) delete holder[field];
    else holder[field] = junk;
    return JSON.stringify(json);
  });
  return fc.oneof(
    { weight: 4, arbitrary: base },
    { weight: 6, arbitrary: mutated },
    { weight: 1, arbitrary: fc.tuple(base, fc.nat()).map(([text, n]) => text.slice(0, n % text.length)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '{',
        'null',
        '[]',
        '"public-key"',
        '42',
        '{"type":"public-key"}',
        '{"type":"public-key","id":"AAAA","rawId":"AAAA","response":"AAAA"}',
        '{"type":"public-key","id":"AAAA","rawId":"AAAA","response":{"clientDataJSON":"AAAA","authenticatorData":"AAAA","signature":"AAAA"}}',
        `{"type":"public-key","id":"AAAA","rawId":"AAAA","response":{"clientDataJSON":"${'A'.repeat(12_400)}"}}`,
        `${'['.repeat(5_000)}${']'.repeat(5_000)}`,
        '{"__proto__":{"type":"public-key"},"constructor":{"prototype":{}}}',
      ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  );
}

/**
 * A POST of `fields` plus `credential`: a form or JSON body with the credential as text (as the
 * pages send it), or JSON with the credential as an object, an array, a number or null.
 */
function credentialPost(path: string, fields: fc.Arbitrary<Pair[]>, credential: fc.Arbitrary<string>, headers: fc.Arbitrary<Headers>): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(fields, fc.option(credential, { freq: 10 }), headers, fc.nat({ max: 9 }), accept).map(([pairs, cred, extra, kind, acc]): FuzzRequest => {
    const list: Pair[] = cred === null ? pairs : [...pairs, ['credential', cred]];
    const accepts = acc === null ? [] : [['Accept', acc] as const];
    if (kind < 5) return { method: 'POST', path, headers: [...extra, ...accepts, ['Content-Type', 'application/x-www-form-urlencoded']], body: joinPairs(list, false) };
    const object: Record<string, unknown> = Object.fromEntries(pairs);
    if (cred !== null) {
      let parsed: unknown = cred;
      if (kind >= 7) {
        try {
          parsed = JSON.parse(cred) as unknown;
        } catch {
          parsed = [cred];
        }
      }
      object.credential = kind === 9 ? [parsed] : parsed;
    }
    let body: string;
    try {
      body = JSON.stringify(object);
    } catch {
      // Nested too deep for this stack (the deeply nested credential): send it as text.
      body = JSON.stringify({ ...object, credential: cred });
    }
    return { method: 'POST', path, headers: [...extra, ...accepts, ['Content-Type', 'application/json']], body };
  });
}

/** Cookie headers an attacker holds: real, tampered, stale, or forged with a valid signature. */
function cookieJarVariants(fx: AuthFixtures, real: readonly Cookie[]): fc.Arbitrary<Headers> {
  const names = ['gh_auth_session', 'gh_auth_interaction', 'gh_auth_resume', '_interaction', '_session'];
  const forged = fc
    .tuple(fc.constantFrom(...names), fc.oneof(fc.constantFrom(fx.staleInteraction.uid, fx.loginStep.uid, fx.mfaStep.uid, '', '..', '%00', ...PROTOTYPE_NAMES), asciiText(30).map((s) => s.replace(/[;,\s"\\]/g, ''))))
    .map(([name, value]) => cookieLine(fx.sign(name, value)));
  const jar = fc.oneof(
    { weight: 4, arbitrary: cookieHeaders(() => real, () => fx.staleInteraction.cookies) },
    { weight: 2, arbitrary: fc.constant(cookieLine(real)) },
    { weight: 1, arbitrary: fc.constant(cookieLine(fx.staleInteraction.cookies)) },
    { weight: 1, arbitrary: forged },
    { weight: 1, arbitrary: fc.constant<Headers>([]) },
  );
  // One time in four, a known-device cookie too (real or tampered), on its own Cookie line.
  return fc.tuple(jar, rarely(knownDeviceCookie(fx))).map(([cookies, device]) => (device === null ? cookies : [...cookies, ...device]));
}

function clientAuthHeaders(fx: AuthFixtures): fc.Arbitrary<Headers> {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const { clientId, clientSecret } = fx.testClient;
  const auth = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...fx.basicAuth) },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        `Basic ${b64(`${clientId}:wrong`)}`,
        `Basic ${b64(`${clientId}:`)}`,
        `Basic ${b64(`:${clientSecret}`)}`,
        `Basic ${b64(clientId)}`,
        `Basic ${b64(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)}`,
        `Basic ${b64(`%zz:%zz`)}`,
        `Basic ${b64(`${clientId}:${clientSecret}:extra`)}`,
        `Basic ${b64(`unknown:${clientSecret}`)}`,
        `Basic ${b64('\u0000:\u0000')}`,
        `basic ${b64(`${clientId}:${clientSecret}`)}`,
        `Basic  ${b64(`${clientId}:${clientSecret}`)}`,
        `Basic ${b64(`${clientId}:${clientSecret}`)}=====`,
        `Basic ${b64(`${clientId}:${clientSecret}`).slice(0, -3)}`,
        'Basic !!!',
        'Basic ====',
        'Basic',
        `Bearer ${clientSecret}`,
      ),
    },
    { weight: 1, arbitrary: asciiText(40).map((s) => `Basic ${s}`) },
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<Headers>([]) },
    { weight: 4, arbitrary: auth.map((a): Headers => [['Authorization', a]]) },
    { weight: 1, arbitrary: fc.tuple(auth, auth).map(([a, b]): Headers => [['Authorization', a], ['Authorization', b]]) },
  );
}

function clientAuthBody(fx: AuthFixtures): fc.Arbitrary<Pair[]> {
  const { clientId, clientSecret } = fx.testClient;
  return fc.constantFrom<Pair[]>(
    [],
    [],
    [['client_id', clientId]],
    [['client_id', clientId], ['client_secret', clientSecret]],
    [['client_id', clientId], ['client_secret', 'wrong']],
    [['client_id', 'unknown'], ['client_secret', clientSecret]],
    [['client_id', fx.introspectionClient.clientId], ['client_secret', fx.introspectionClient.clientSecret]],
    [['client_id', clientId], ['client_assertion_type', 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'], ['client_assertion', 'a.b.c']],
    [['client_id', clientId], ['client_id', 'other']],
  );
}

const accept = fc.option(fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', 'text/event-stream', 'application/json;q=abc', ''), { freq: 2 });

/** A form POST (or, sometimes, the same fields in another body type). */
function formPost(path: string, pairs: fc.Arbitrary<Pair[]>, headers: fc.Arbitrary<Headers>): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(withRepeats(pairs), headers, fc.nat({ max: 9 }), fc.boolean(), accept, fc.constantFrom('POST', 'POST', 'POST', 'POST', 'POST', 'POST', 'GET', 'PUT')).map(([list, extra, kind, raw, acc, method]) => {
    const form = joinPairs(list, raw);
    const [type, body] =
      kind < 7
        ? ['application/x-www-form-urlencoded', form]
        : kind === 7
          ? ['application/json', JSON.stringify(Object.fromEntries(list))]
          : kind === 8
            ? ['application/x-www-form-urlencoded; charset=iso-8859-1', form]
            : ['text/plain', form];
    return {
      method,
      path: method === 'GET' ? `${path}?${form}` : path,
      headers: [...extra, ...(acc === null ? [] : [['Accept', acc] as const]), ...(method === 'GET' ? [] : [['Content-Type', type] as const])],
      ...(method === 'GET' ? {} : { body }),
    };
  });
}

/** GET /oauth2/v1/authorize (or POST with a form), with every OAuth parameter in its variants. */
function authorize(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const pairs = fc
    .tuple(
      someOf([
        one('client_id', fc.constantFrom(fx.testClient.clientId, fx.testClient.clientId, 'app-two-test', fx.introspectionClient.clientId, 'unknown', '', 'TEST-APP', '__proto__')),
        one('redirect_uri', redirectUri(fx.testClient.redirectUri)),
        one('response_type', fc.constantFrom('code', 'code', 'code', 'token', 'id_token', 'code id_token', 'id_token token', 'none', '', 'CODE', 'code code', 'code\u0000')),
        one('scope', fc.constantFrom('openid', 'openid profile email movies:read', 'openid offline_access', 'movies:read', 'openid openid', '', 'openid unknown:scope', 'openid movies:write', 'openid%20profile', 'x'.repeat(3_000))),
        one('state', queryValue),
        one('nonce', queryValue),
        one('response_mode', fc.constantFrom('query', 'fragment', 'form_post', 'jwt', 'query.jwt', 'web_message', 'garbage', '')),
        one('prompt', fc.constantFrom('none', 'login', 'consent', 'select_account', 'none login', 'create', 'garbage', '')),
        one('max_age', oddNumbers),
        one('request', jwtLike([])),
        one('request_uri', fc.constantFrom('urn:ietf:params:oauth:request_uri:abc', 'https://evil.example/request.jwt', 'http://127.0.0.1:1/x', '', 'file:///etc/passwd')),
        one('claims', fc.constantFrom('{"userinfo":{"email":{"essential":true}}}', '{', '[]', '{"id_token":{"acr":{"values":["x"]}}}', 'null')),
        one('id_token_hint', jwtLike([fx.idToken])),
        one('login_hint', anyText(40)),
        one('ui_locales', fc.constantFrom('en', 'xx-XX', '', '*', '\u0000')),
        one('acr_values', asciiText(20)),
        one('resource', fc.constantFrom('http://127.0.0.1:9999', 'https://evil.example', 'urn:x', '', 'not a uri')),
        one('display', fc.constantFrom('page', 'popup', 'garbage')),
        one('registration', fc.constantFrom('{}', '{"redirect_uris":["https://evil.example"]}')),
        one('__proto__', queryValue),
      ]),
      pkceParams,
    )
    .map(([a, b]) => [...a, ...b]);
  const cookies = cookieJarVariants(fx, fx.sessionCookies);
  return fc.tuple(withRepeats(pairs), cookies, fc.boolean(), fc.nat({ max: 5 }), accept).map(([list, cookie, raw, post, acc]) => {
    const query = joinPairs(list, raw);
    const headers = [...cookie, ...(acc === null ? [] : [['Accept', acc] as const])];
    if (post === 0) return { method: 'POST', path: '/oauth2/v1/authorize', headers: [...headers, ['Content-Type', 'application/x-www-form-urlencoded']], body: query };
    return { method: 'GET', path: `/oauth2/v1/authorize?${query}`, headers };
  });
}

/** POST /oauth2/v1/token: grant types with and without client authentication. */
function token(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const codes = fc.oneof(fc.constantFrom(fx.freshCode, fx.freshCode, fx.usedCode, '', 'x'.repeat(5_000), fx.accessToken, fx.refreshToken), asciiText(43));
  const grant = fc.constantFrom(
    'authorization_code',
    'authorization_code',
    'refresh_token',
    'refresh_token',
    'client_credentials',
    'password',
    'implicit',
    'urn:ietf:params:oauth:grant-type:device_code',
    'urn:ietf:params:oauth:grant-type:jwt-bearer',
    'urn:ietf:params:oauth:grant-type:token-exchange',
    'AUTHORIZATION_CODE',
    '',
    '__proto__',
  );
  const pairs = fc
    .tuple(
      one('grant_type', grant),
      someOf([
        one('code', codes),
        one('redirect_uri', redirectUri(fx.testClient.redirectUri)),
        // The fresh code's verifier is never among these (PKCE downgrade and wrong verifiers only).
        one('code_verifier', fc.oneof(fc.constantFrom('', S256_CHALLENGE, 'short', 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'a'.repeat(200)), asciiText(50))),
        one('refresh_token', fc.oneof(fc.constantFrom(fx.refreshToken, fx.rotatedRefreshToken, fx.rotatedRefreshToken, fx.accessToken, ''), asciiText(43))),
        one('scope', fc.constantFrom('openid', 'movies:read', 'movies:read movies:write', 'openid offline_access', '', 'unknown')),
        one('resource', fc.constantFrom('http://127.0.0.1:9999', 'https://evil.example', 'urn:x', '')),
        one('username', fc.constantFrom(...fx.users.map((u) => u.username))),
        one('password', fc.constantFrom(...fx.users.map((u) => u.password))),
      ]),
      clientAuthBody(fx),
    )
    .map(([a, b, c]) => [...a, ...b, ...c]);
  return formPost('/oauth2/v1/token', pairs, clientAuthHeaders(fx));
}

/** POST /oauth2/v1/introspect and /oauth2/v1/revoke. */
function tokenManagement(fx: AuthFixtures, path: string): fc.Arbitrary<FuzzRequest> {
  const pairs = fc
    .tuple(
      someOf([
        one('token', fc.oneof(jwtLike([fx.accessToken, fx.idToken, fx.refreshToken, fx.rotatedRefreshToken, fx.freshCode]), fc.constant(''))),
        one('token_type_hint', fc.constantFrom('access_token', 'refresh_token', 'id_token', 'authorization_code', 'garbage', '')),
      ]),
      clientAuthBody(fx),
    )
    .map(([a, b]) => [...a, ...b]);
  return formPost(path, pairs, clientAuthHeaders(fx));
}

/** GET/POST /oauth2/v1/userinfo with tokens in the header, the query or the body. */
function userinfo(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const bearer = fc.oneof(jwtLike([fx.accessToken, fx.idToken, fx.refreshToken]).map((t) => `Bearer ${t}`), fc.constantFrom('Bearer', 'Bearer ', `bearer ${fx.accessToken}`, `Bearer ${fx.accessToken} extra`, `DPoP ${fx.accessToken}`, fx.basicAuth[0]!));
  const headers = fc.oneof(
    fc.constant<Headers>([]),
    bearer.map((b): Headers => [['Authorization', b]]),
    fc.tuple(bearer, bearer).map(([a, b]): Headers => [['Authorization', a], ['Authorization', b]]),
  );
  const pairs = someOf([one('access_token', jwtLike([fx.accessToken])), one('claims', fc.constantFrom('{"userinfo":{"email":null}}', '{'))]);
  return formPost('/oauth2/v1/userinfo', pairs, headers);
}

/** GET/POST /oauth2/v1/logout and its confirm step. */
function logout(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const pairs = someOf([
    one('id_token_hint', jwtLike([fx.idToken])),
    one('post_logout_redirect_uri', redirectUri('http://127.0.0.1:7/signed-out')),
    one('client_id', fc.constantFrom(fx.testClient.clientId, 'app-two-test', 'unknown', '')),
    one('state', queryValue),
    one('logout_hint', anyText(20)),
    one('ui_locales', fc.constantFrom('en', '*')),
    one('xsrf', asciiText(40)),
    one('logout', fc.constantFrom('yes', 'no', '')),
  ]);
  const cookies = cookieJarVariants(fx, fx.sessionCookies);
  return fc.oneof(formPost('/oauth2/v1/logout', pairs, cookies), formPost('/oauth2/v1/logout/confirm', pairs, cookies));
}

/** GET /oauth2/v1/revocations: the feed, with credentials that hold only when no stream is asked for. */
function revocationFeed(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const query = someOf([one('since', oddNumbers), one('limit', oddNumbers), one('since', fc.constantFrom('0', '1', '', '-1'))]);
  return fc
    .tuple(withRepeats(query), clientAuthHeaders(fx), fc.option(fc.constantFrom('text/event-stream', 'application/json', 'text/event-stream, application/json', '*/*'), { freq: 2 }), fc.option(oddNumbers, { freq: 4 }), fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST'))
    .map(([list, auth, acc, lastEventId, method]) => {
      const streaming = acc !== null && acc.includes('text/event-stream');
      // A stream with valid credentials stays open for minutes: only ever ask for it with bad ones.
      const headers = streaming ? auth.filter(([, v]) => !fx.basicAuth.includes(v)) : auth;
      return {
        method,
        path: `/oauth2/v1/revocations${list.length ? `?${joinPairs(list, false)}` : ''}`,
        headers: [...headers, ...(acc === null ? [] : [['Accept', acc] as const]), ...(lastEventId === null ? [] : [['Last-Event-ID', lastEventId] as const])],
      };
    });
}

/** Discovery, JWKS and the other read-only documents. */
const documents: fc.Arbitrary<FuzzRequest> = fc
  .tuple(
    fc.constantFrom('/.well-known/openid-configuration', '/oauth2/v1/keys', '/.well-known/oauth-authorization-server', '/oauth2/v1/.well-known/openid-configuration', '/healthz', '/readyz'),
    fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'OPTIONS'),
    headerSet({ accept: ['application/json', 'application/jwk-set+json'] }),
  )
  .map(([path, method, headers]) => ({ method, path, headers }));

/** Every OAuth endpoint, weighted towards the ones that take parameters. */
export function oauthRequests(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 5, arbitrary: authorize(fx) },
    { weight: 5, arbitrary: token(fx) },
    { weight: 2, arbitrary: tokenManagement(fx, '/oauth2/v1/introspect') },
    { weight: 2, arbitrary: tokenManagement(fx, '/oauth2/v1/revoke') },
    { weight: 2, arbitrary: userinfo(fx) },
    { weight: 2, arbitrary: logout(fx) },
    { weight: 2, arbitrary: revocationFeed(fx) },
    { weight: 1, arbitrary: documents },
  );
}

/** The sign-in steps: /login, /mfa/verify, the passkey sign-in and second factor, the push poll and the interaction pages. */
export function interactionRequests(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const uid = fc.oneof(fc.constantFrom(fx.loginStep.uid, fx.mfaStep.uid, fx.staleInteraction.uid, '', 'x'.repeat(300), ...PROTOTYPE_NAMES), asciiText(24));
  const user = fc.constantFrom(...fx.users);
  const username = fc.oneof(user.map((u) => u.username), user.map((u) => ` ${u.username.toUpperCase()} `), fc.constantFrom('', 'admin', 'u'.repeat(65), 'ü'.repeat(64), '__proto__'), anyText(20));
  const password = fc.oneof(user.map((u) => u.password), fc.constantFrom('', 'wrong', 'p'.repeat(1_025), '\u0000'), anyText(20));
  type Step = AuthFixtures['loginStep'];
  const steps: Step[] = [fx.loginStep, fx.mfaStep, fx.staleInteraction];
  // Mostly a consistent browser (the step's own cookies and uid), so the handlers' deeper checks run.
  // One arbitrary per step, built once (building them per draw costs more than the requests).
  const forStepWith = (build: (step: Step, cookies: fc.Arbitrary<Headers>) => fc.Arbitrary<FuzzRequest>) =>
    fc.oneof(
      ...steps.map((step) => {
        const cookies = fc.oneof(
          { weight: 8, arbitrary: fc.constant(cookieLine(step.cookies)) },
          { weight: 3, arbitrary: cookieJarVariants(fx, step.cookies) },
          { weight: 1, arbitrary: cookieJarVariants(fx, fx.sessionCookies) },
        );
        return { weight: step === fx.staleInteraction ? 1 : 3, arbitrary: build(step, cookies) };
      }),
    );
  const forStep = (fields: (step: Step) => fc.Arbitrary<Pair[]>, path: string) => forStepWith((step, cookies) => formPost(path, fields(step), cookies));
  const stepUid = (step: Step) =>
    fc.oneof({ weight: 8, arbitrary: fc.constant<Pair[]>([['uid', step.uid]]) }, { weight: 1, arbitrary: fc.constant<Pair[]>([]) }, { weight: 2, arbitrary: one('uid', uid) });
  const loginFields = (step: Step) =>
    fc
      .tuple(stepUid(step), fc.option(one('username', username), { freq: 8 }), fc.option(one('password', password), { freq: 8 }), rarely(one('constructor', asciiText(4))))
      .map((parts) => parts.flatMap((p) => p ?? []));
  const mfaFields = (step: Step) =>
    fc
      .tuple(
        stepUid(step),
        fc.option(one('method', fc.constantFrom('totp', 'totp', 'push', 'push', 'recovery', 'recovery', 'passkey', 'sms', '', 'TOTP', 'PASSKEY', '__proto__')), { freq: 4 }),
        fc.option(one('code', fc.oneof(fc.constantFrom('000000', '123456', '12345', '1234567', '', 'abcdef', 'AAAA-BBBB-CCCC-DDDD', 'aaaa-bbbb-cccc-dddd-eeee', '１２３４５６', ' 123456'), oddNumbers)), { freq: 6 }),
      )
      .map((parts) => parts.flatMap((p) => p ?? []));
  const loginPairs = someOf([one('uid', uid), one('username', username), one('password', password)]);
  const stepCookies = fc.oneof(
    cookieJarVariants(fx, fx.loginStep.cookies),
    cookieJarVariants(fx, fx.mfaStep.cookies),
    cookieJarVariants(fx, fx.sessionCookies),
  );
  const login = forStep(loginFields, '/login');
  const mfa = forStep(mfaFields, '/mfa/verify');
  const pages = fc
    .tuple(
      fc.oneof(
        uid.map((u) => `/interaction/${encodeURIComponentLoose(u)}`),
        // Not the resume endpoint (/oauth2/v1/authorize/:uid): it ends the interaction of the cookie
        // it is sent with, whatever uid it names, and the live fixtures must last the run;
        // any-route.test.ts sends it.
        fc
          .tuple(fc.oneof(fc.constant(fx.pushId), asciiText(20).map(encodeURIComponentLoose), fc.constant('x'.repeat(65))), fc.constantFrom('', '/status'))
          .map(([id, status]) => `/mfa/push/${id}${status}`),
      ),
      stepCookies,
      accept,
      fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST'),
    )
    .map(([path, cookies, acc, method]): FuzzRequest => ({ method, path, headers: [...cookies, ...(acc === null ? [] : [['Accept', acc] as const])] }));
  const hostileBodies = fc
    .tuple(fc.constantFrom('/login', '/mfa/verify', '/login/passkey', '/login/passkey/options', '/mfa/passkey/options'), stepCookies, bodyCase({ form: loginPairs.map((p) => Object.fromEntries(p)) }))
    .map(([path, cookies, body]): FuzzRequest => ({ method: 'POST', path, headers: [...cookies, ...body.headers], ...(body.body === undefined ? {} : { body: body.body }) }));
  // Passkeys: options for this browser's interaction or another's, passwordless answers, and the
  // second factor with method=passkey; answers to live challenges, mutated (passkeyCredential).
  // Options as the pages ask for them (JSON, the step's own cookies and uid) keep challenges live for the answers.
  const pageOptions = fc
    .tuple(fc.constantFrom(fx.loginStep, fx.mfaStep), fc.constantFrom('/login/passkey/options', '/mfa/passkey/options'))
    .map(([step, path]): FuzzRequest => ({ method: 'POST', path, headers: [...cookieLine(step.cookies), ['Content-Type', 'application/json']], body: JSON.stringify({ uid: step.uid }) }));
  const passkeyOptions = fc.oneof(pageOptions, forStep(stepUid, '/login/passkey/options'), forStep(stepUid, '/mfa/passkey/options'));
  // Mostly answers to the step's own challenges; sometimes to the other interaction's.
  const answersFor = (step: Step): PasskeyAnswerFor[] => (step === fx.mfaStep ? ['mfa', 'mfa', 'mfa', 'login'] : ['login', 'login', 'login', 'mfa']);
  const passkeyLogin = forStepWith((step, cookies) => credentialPost('/login/passkey', stepUid(step), passkeyCredential(fx, answersFor(step)), cookies));
  const passkeyMethod = fc.oneof({ weight: 8, arbitrary: fc.constant<Pair[]>([['method', 'passkey']]) }, { weight: 1, arbitrary: one('method', fc.constantFrom('totp', 'Passkey', 'passkey ', '')) });
  const passkeyMfa = forStepWith((step, cookies) =>
    credentialPost('/mfa/verify', fc.tuple(stepUid(step), passkeyMethod).map(([a, b]) => [...a, ...b]), passkeyCredential(fx, answersFor(step)), cookies),
  );
  return fc.oneof(
    { weight: 3, arbitrary: login },
    { weight: 3, arbitrary: mfa },
    { weight: 2, arbitrary: pages },
    { weight: 2, arbitrary: hostileBodies },
    { weight: 2, arbitrary: passkeyOptions },
    { weight: 2, arbitrary: passkeyLogin },
    { weight: 2, arbitrary: passkeyMfa },
  );
}

/** The web authenticator's API, the devices page and its passkeys, static files. */
export function authenticatorRequests(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const jwk = fc.oneof(
    fc.constant<unknown>({ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }),
    fc.constant<unknown>({ kty: 'EC', crv: 'P-256', x: 'AAAA', y: 'AAAA' }),
    fc.constant<unknown>({ kty: 'EC', crv: 'P-384', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0' }),
    fc.constant<unknown>({ kty: 'RSA', n: 'AQAB', e: 'AQAB' }),
    fc.constant<unknown>({ kty: 'oct', k: 'AAAA' }),
    fc.constant<unknown>({ kty: 'EC', crv: 'P-256', x: 1e400, y: [], d: 'secret' }),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const signature = fc.oneof(fc.constantFrom('', 'x', 'A'.repeat(86), 'A'.repeat(129)), asciiText(90));
  const register = fc
    .record({ code: fc.oneof(asciiText(20), fc.constantFrom('', 'a'.repeat(65), '__proto__')), name: anyText(30), public_key: jwk, signature }, { requiredKeys: [] })
    .map((body) => JSON.stringify(body));
  const answer = fc
    .record(
      {
        device_id: fc.oneof(fc.constant(fx.deviceId), asciiText(20)),
        decision: fc.constantFrom('approve', 'deny', 'maybe', '', 'APPROVE'),
        number: fc.oneof(fc.constantFrom('00', '12', '1', '123', ''), oddNumbers),
        signature,
      },
      { requiredKeys: [] },
    )
    .map((body) => JSON.stringify(body));
  const jsonPost = (path: fc.Arbitrary<string>, body: fc.Arbitrary<string>) =>
    fc.tuple(path, body, fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', '')).map(([p, b, type]): FuzzRequest => ({
      method: 'POST',
      path: p,
      headers: type ? [['Content-Type', type]] : [],
      body: b,
    }));
  const signedListing = fc
    .tuple(fc.constantFrom(...fx.signedQueries), fc.nat({ max: 6 }), fc.nat())
    .map(([query, mode, n]) => {
      const params = new URLSearchParams(query);
      if (mode === 1) params.set('ts', String(Number(params.get('ts')) + 1));
      if (mode === 2) params.set('nonce', `${params.get('nonce')}x`);
      if (mode === 3) params.append('device_id', 'other');
      if (mode === 4) params.set('sig', params.get('sig')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')));
      if (mode === 5) params.delete(['device_id', 'ts', 'nonce', 'sig'][n % 4]!);
      return { query: params.toString(), intact: mode === 0 || mode === 6 };
    });
  const listing = fc
    .tuple(signedListing, fc.constantFrom('/authenticator/api/requests', '/authenticator/api/events'), accept)
    // A valid signature on the event stream would open it for minutes: streams get tampered ones only.
    .filter(([{ intact }, path]) => !(intact && path.endsWith('/events')))
    .map(([{ query }, path, acc]): FuzzRequest => ({ method: 'GET', path: `${path}?${query}`, headers: acc === null ? [] : [['Accept', acc]] }));
  const sameSite = fc.constantFrom<Headers>([], [['Origin', fx.issuer]], [['Origin', 'null']], [['Origin', 'https://evil.example']], [['Sec-Fetch-Site', 'cross-site']], [['Sec-Fetch-Site', 'same-origin']], [['Sec-Fetch-Site', 'same-site'], ['Origin', fx.issuer]]);
  const manage = fc
    .tuple(
      fc.constantFrom(
        ['GET', '/authenticator/devices'],
        ['POST', '/authenticator/devices/enroll'],
        ['POST', '/authenticator/devices/remove'],
        ['POST', '/authenticator/recovery-codes'],
        ['GET', '/authenticator'],
        ['GET', '/account'],
        ['POST', '/account/password'],
        ['POST', '/account/totp'],
        ['POST', '/account/totp/confirm'],
        ['GET', '/account/password-reset/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        ['POST', '/account/password-reset/not-a-token'],
      ),
      cookieJarVariants(fx, fx.sessionCookies),
      sameSite,
      bodyCase({ form: fc.record({ device_id: fc.oneof(asciiText(20), fc.constantFrom('unknown-device', '', '__proto__')) }, { requiredKeys: [] }) }),
      accept,
    )
    .map(([[method, path], cookies, site, body, acc]): FuzzRequest => ({
      method,
      path,
      headers: [...cookies, ...site, ...(acc === null ? [] : [['Accept', acc] as const]), ...(method === 'POST' ? body.headers : [])],
      ...(method === 'POST' && body.body !== undefined ? { body: body.body } : {}),
    }));
  const assets = fc
    .tuple(fc.constantFrom(...AUTH_STATIC_ASSETS.map((a) => a.path), '/static/', '/static/../src/app.ts', '/static/%2e%2e/package.json', '/authenticator/signed-message.d.ts', '/static/gatehouse.css.map'), headerSet({}), fc.constantFrom('GET', 'HEAD', 'POST'))
    .map(([path, headers, method]): FuzzRequest => ({ method, path, headers }));
  // Passkeys on the devices page: options, registration answers (refused, mutated), removal of
  // ids that are not the user's (the real one would end the passkey fixtures).
  const passkeyManage = fc
    .tuple(
      fc.constantFrom('/authenticator/passkeys/options', '/authenticator/passkeys', '/authenticator/passkeys', '/authenticator/passkeys/remove'),
      cookieJarVariants(fx, fx.sessionCookies),
      sameSite,
      fc.nat({ max: 9 }),
    )
    .chain(([path, cookies, site, weight]) => {
      const headers = fc.constant<Headers>([...cookies, ...site]);
      if (path === '/authenticator/passkeys') {
        const name = fc.option(one('name', fc.oneof(anyText(30), fc.constantFrom('', 'x'.repeat(65), '\u0007', '__proto__'))), { freq: 4 }).map((p) => p ?? []);
        return credentialPost(path, name, passkeyCredential(fx, ['register', 'register', 'login']), headers);
      }
      if (path === '/authenticator/passkeys/remove') {
        const id = fc.oneof(
          fc.constantFrom(fx.passkey.credentialId.slice(1), `${fx.passkey.credentialId}A`, fx.passkey.credentialId.toLowerCase() === fx.passkey.credentialId ? 'unknown' : fx.passkey.credentialId.toLowerCase(), '', '..', 'A'.repeat(1_401), '__proto__', 'a b', '%00'),
          fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/).filter((v) => v !== fx.passkey.credentialId),
        );
        return formPost(path, fc.option(one('credential_id', id), { freq: 8 }).map((p) => p ?? []), headers);
      }
      return weight < 7 ? formPost(path, fc.constant<Pair[]>([]), headers) : bodyCase({}).map((body): FuzzRequest => ({ method: 'POST', path, headers: [...cookies, ...site, ...body.headers], ...(body.body === undefined ? {} : { body: body.body }) }));
    });
  // Registration options as the devices page asks for them, so the registration answers have live challenges.
  const pageOptions = fc.constant<FuzzRequest>({ method: 'POST', path: '/authenticator/passkeys/options', headers: [...cookieLine(fx.sessionCookies), ['Content-Type', 'application/json']], body: '{}' });
  return fc.oneof(
    { weight: 1, arbitrary: pageOptions },
    { weight: 3, arbitrary: passkeyManage },
    { weight: 2, arbitrary: jsonPost(fc.constant('/authenticator/api/register'), register) },
    { weight: 2, arbitrary: jsonPost(fc.oneof(fc.constant(fx.pushId), asciiText(20).map(encodeURIComponentLoose), fc.constant('x'.repeat(65))).map((id) => `/authenticator/api/requests/${id}/answer`), answer) },
    { weight: 2, arbitrary: listing },
    { weight: 3, arbitrary: manage },
    { weight: 1, arbitrary: assets },
  );
}

/** Every route of the server for the shared generic request generator. */
const ROUTES: readonly RouteSpec[] = [
  { path: '/oauth2/v1/authorize', methods: ['GET', 'POST'], query: ['client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'request', 'request_uri'] },
  { path: '/oauth2/v1/authorize/:uid', methods: ['GET'] },
  { path: '/oauth2/v1/token', methods: ['POST'] },
  { path: '/oauth2/v1/introspect', methods: ['POST'] },
  { path: '/oauth2/v1/revoke', methods: ['POST'] },
  { path: '/oauth2/v1/userinfo', methods: ['GET', 'POST'], query: ['access_token'] },
  { path: '/oauth2/v1/keys', methods: ['GET'] },
  { path: '/oauth2/v1/logout', methods: ['GET', 'POST'], query: ['id_token_hint', 'post_logout_redirect_uri', 'client_id', 'state'] },
  { path: '/oauth2/v1/logout/confirm', methods: ['POST'] },
  { path: '/oauth2/v1/revocations', methods: ['GET', 'HEAD'], query: ['since', 'limit'] },
  { path: '/oauth2/v1/device/authorize', methods: ['POST'] },
  { path: '/activate', methods: ['GET', 'POST'], query: ['user_code'] },
  { path: '/activate/:uid', methods: ['GET'] },
  { path: '/.well-known/openid-configuration', methods: ['GET'] },
  { path: '/login', methods: ['POST'] },
  { path: '/login/passkey/options', methods: ['POST'] },
  { path: '/login/passkey', methods: ['POST'] },
  { path: '/mfa/passkey/options', methods: ['POST'] },
  { path: '/mfa/verify', methods: ['POST'] },
  { path: '/mfa/push/:id', methods: ['GET'] },
  { path: '/mfa/push/:id/status', methods: ['GET'] },
  { path: '/interaction/:uid', methods: ['GET'] },
  { path: '/authenticator', methods: ['GET'] },
  { path: '/authenticator/devices', methods: ['GET'] },
  { path: '/authenticator/devices/enroll', methods: ['POST'] },
  { path: '/authenticator/devices/enroll/status', methods: ['GET'] },
  { path: '/authenticator/devices/enroll/done', methods: ['GET'] },
  { path: '/authenticator/devices/remove', methods: ['POST'] },
  { path: '/authenticator/recovery-codes', methods: ['POST'] },
  { path: '/authenticator/passkeys/options', methods: ['POST'] },
  { path: '/authenticator/passkeys', methods: ['POST'] },
  { path: '/authenticator/passkeys/remove', methods: ['POST'] },
  { path: '/authenticator/api/register', methods: ['POST'] },
  { path: '/authenticator/api/requests', methods: ['GET'], query: ['device_id', 'ts', 'nonce', 'sig'] },
  { path: '/authenticator/api/events', methods: ['GET'], query: ['device_id', 'ts', 'nonce', 'sig'] },
  { path: '/authenticator/api/requests/:id/answer', methods: ['POST'] },
  { path: '/authenticator/api/requests/:id/report', methods: ['POST'] },
  { path: '/account', methods: ['GET'], query: ['client_id', 'return_to'] },
  { path: '/account/security', methods: ['GET'] },
  { path: '/account/sessions', methods: ['GET'] },
  { path: '/account/apps', methods: ['GET'] },
  { path: '/account/security/devices/remove', methods: ['GET'], query: ['device_id'] },
  { path: '/account/security/passkeys/remove', methods: ['GET'], query: ['credential_id'] },
  { path: '/account/security/recovery-codes', methods: ['GET'] },
  { path: '/account/security/links/remove', methods: ['GET'], query: ['provider'] },
  { path: '/account/sessions/end', methods: ['GET', 'POST'], query: ['session'] },
  { path: '/account/callback', methods: ['GET'], query: ['error', 'iss', 'state'] },
  { path: '/account/password', methods: ['POST'] },
  { path: '/account/totp', methods: ['POST'] },
  { path: '/account/totp/confirm', methods: ['POST'] },
  { path: '/account/totp/cancel', methods: ['POST'] },
  { path: '/account/security/totp', methods: ['GET'] },
  { path: '/account/email', methods: ['POST'] },
  { path: '/account/email/verify/:token', methods: ['GET'] },
  { path: '/account/sessions/sign-out-others', methods: ['GET', 'POST'] },
  { path: '/account/password-reset/:token', methods: ['GET', 'POST'] },
  { path: '/account/password-reset/:token/passkey-options', methods: ['POST'] },
  { path: '/account/password-reset/:token/push', methods: ['POST'] },
  { path: '/account/password-reset/:token/push/:id/status', methods: ['GET'] },
  { path: '/account/preferred-factor', methods: ['POST'] },
  { path: '/static/gatehouse.css', methods: ['GET'] },
  { path: '/static/passkey.js', methods: ['GET'] },
  { path: '/static/simplewebauthn-browser.js', methods: ['GET'] },
  { path: '/authenticator/app.js', methods: ['GET'] },
  { path: '/healthz', methods: ['GET'] },
  { path: '/readyz', methods: ['GET'] },
];

/** Any route, any method, the shared hostile headers, bodies and tampered cookies of every fixture. */
export function anyRouteRequests(fx: AuthFixtures): fc.Arbitrary<FuzzRequest> {
  const everyCookie = [...fx.sessionCookies, ...fx.mfaStep.cookies.filter(([name]) => !fx.sessionCookies.some(([n]) => n === name))];
  const routes = ROUTES.map((route) =>
    route.path.includes(':') ? { ...route, params: { uid: [fx.loginStep.uid, fx.mfaStep.uid, fx.staleInteraction.uid], id: [fx.pushId] } } : route,
  );
  return fuzzRequest({
    routes,
    headers: {
      authorization: [...fx.basicAuth, `Bearer ${fx.accessToken}`, `Bearer ${fx.idToken}`],
      extra: fc.tuple(cookieHeaders(() => everyCookie, () => fx.staleInteraction.cookies), rarely(knownDeviceCookie(fx))).map(([cookies, device]) => (device === null ? cookies : [...cookies, ...device])),
      hostileHost: true,
    },
    bodies: {
      form: fc.record(
        {
          uid: fc.constantFrom(fx.loginStep.uid, fx.mfaStep.uid),
          username: fc.constantFrom(...fx.users.map((u) => u.username)),
          password: asciiText(12),
          code: fc.constant('123456'),
          method: fc.constantFrom('totp', 'push', 'passkey'),
          credential: passkeyCredential(fx, ['login', 'mfa', 'register']),
          credential_id: fc.constantFrom('unknown', ''),
          grant_type: fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials'),
          token: fc.constant(fx.accessToken),
        },
        { requiredKeys: [] },
      ),
      json: fc.record(
        {
          uid: fc.constantFrom(fx.loginStep.uid, fx.mfaStep.uid),
          username: fc.constantFrom(...fx.users.map((u) => u.username)),
          password: asciiText(12),
          method: fc.constantFrom('totp', 'push', 'passkey'),
          code: fc.constant('123456'),
          credential: passkeyCredential(fx, ['login', 'mfa', 'register']),
        },
        { requiredKeys: [] },
      ),
    },
  }).filter((request) => {
    // Never the open streams: event streams with real credentials stay open for minutes.
    const streaming = request.headers.some(([name, value]) => name.toLowerCase() === 'accept' && value.includes('text/event-stream'));
    return !(streaming && request.path.startsWith('/oauth2/v1/revocations') && request.headers.some(([name, value]) => name.toLowerCase() === 'authorization' && fx.basicAuth.includes(value)));
  });
}
