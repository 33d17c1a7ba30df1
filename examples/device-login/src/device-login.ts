/**
 * Signing a user in from a terminal with the device authorization grant (RFC 8628). Rules:
 * - the server's metadata comes from discovery, which must name a device authorization endpoint;
 * - plain http is used only for a loopback issuer (a development server), https otherwise;
 * - the user is shown where to go and the code to type (and the complete URI, for a phone);
 * - the token endpoint is polled every `interval` seconds (5 when the server names none);
 *   `slow_down` adds 5 seconds to the interval for every later poll (RFC 8628 §3.5);
 * - `access_denied` and `expired_token` end the sign-in with a DeviceLoginError of that code;
 *   any other OAuth error ends it with the server's code and description.
 */
import * as oauth from 'oauth4webapi';

export interface DeviceLoginPrompt {
  verificationUri: string;
  verificationUriComplete: string | undefined;
  userCode: string;
  /** Seconds until the code expires. */
  expiresIn: number;
}

export interface DeviceLoginOptions {
  issuer: string;
  clientId: string;
  scope: string;
  /** Tells the user what to do (the sign-in waits until it is shown). */
  show(prompt: DeviceLoginPrompt): void | Promise<void>;
  /** Waits between two polls. */
  wait(seconds: number): Promise<void>;
  fetch?: typeof fetch;
}

export class DeviceLoginError extends Error {
  /** The OAuth error code (`access_denied`, `expired_token`, …) or `no_device_endpoint`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const DEFAULT_INTERVAL = 5;

export async function deviceLogin(options: DeviceLoginOptions): Promise<oauth.TokenEndpointResponse> {
  const issuer = new URL(options.issuer);
  const http = {
    ...(LOOPBACK.has(issuer.hostname) ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(options.fetch ? { [oauth.customFetch]: options.fetch } : {}),
  };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, http));
  if (!as.device_authorization_endpoint) throw new DeviceLoginError('no_device_endpoint', `${options.issuer} does not offer the device authorization grant`);
  const client: oauth.Client = { client_id: options.clientId };
  const auth = oauth.None();

  const started = await oauth.processDeviceAuthorizationResponse(
    as,
    client,
    await oauth.deviceAuthorizationRequest(as, client, auth, new URLSearchParams({ scope: options.scope }), http),
  ).catch(rethrowOAuthError);
  await options.show({
    verificationUri: started.verification_uri,
    verificationUriComplete: started.verification_uri_complete,
    userCode: started.user_code,
    expiresIn: started.expires_in,
  });

  let interval = started.interval ?? DEFAULT_INTERVAL;
  for (;;) {
    await options.wait(interval);
    try {
      return await oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, auth, started.device_code, http));
    } catch (error) {
      if (!(error instanceof oauth.ResponseBodyError)) throw error;
      if (error.error === 'authorization_pending') continue;
      if (error.error === 'slow_down') {
        interval += 5;
        continue;
      }
      rethrowOAuthError(error);
    }
  }
}

const MESSAGES: Record<string, string> = {
  access_denied: 'the sign-in was denied in the browser',
  expired_token: 'the code expired before the sign-in was approved: run the command again',
};

function rethrowOAuthError(error: unknown): never {
  if (error instanceof oauth.ResponseBodyError) {
    throw new DeviceLoginError(error.error, MESSAGES[error.error] ?? `${error.error}: ${error.error_description ?? 'the server refused the request'}`);
  }
  throw error;
}
