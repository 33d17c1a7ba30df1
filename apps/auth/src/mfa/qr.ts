import QRCode from 'qrcode';

/** A QR code as an inline SVG document, for enrolment pages. */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/** A QR code drawn with block characters, for the operator CLI. */
export function qrTerminal(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
}
