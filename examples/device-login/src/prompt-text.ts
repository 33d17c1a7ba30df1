/**
 * What the command line shows while it waits for the approval. Rules:
 * - the verification URI and the user code first, as RFC 8628 §3.3 asks, so a user can type them;
 * - when the server gives a complete URI, a QR code of it follows, drawn with terminal block
 *   characters, for a phone to scan (RFC 8628 §3.3.1), and the complete URI as text under it;
 * - the code's lifetime in whole minutes, at least one.
 */
import QRCode from 'qrcode';
import type { DeviceLoginPrompt } from './device-login.ts';

export async function promptText(prompt: DeviceLoginPrompt): Promise<string> {
  const lines = [`To sign in, open ${prompt.verificationUri} and enter the code ${prompt.userCode}`];
  if (prompt.verificationUriComplete) {
    const qr = await QRCode.toString(prompt.verificationUriComplete, { type: 'terminal', small: true });
    lines.push('Or scan this code with your phone:', qr.trimEnd(), `(${prompt.verificationUriComplete})`);
  }
  lines.push(`The code expires in ${Math.max(1, Math.round(prompt.expiresIn / 60))} minutes. Waiting for the approval…`);
  return `${lines.join('\n')}\n`;
}
