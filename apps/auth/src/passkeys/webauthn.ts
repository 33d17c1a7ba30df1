/**
 * @simplewebauthn/server, loaded on the first passkey ceremony rather than at start: with its
 * ASN.1 and X.509 dependencies it is the largest module graph the server would otherwise hold
 * for a feature many deployments never use (bench/README.md, "Memory"). Every ceremony awaits the same import, so the library loads once.
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;

export function webauthn(): Promise<typeof import('@simplewebauthn/server')> {
  library ??= import('@simplewebauthn/server');
  return library;
}
