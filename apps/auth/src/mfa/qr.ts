/** qrcode (and its PNG encoder) loads on the first QR code drawn, not at start (bench/README.md, "Memory"). */
let library: Promise<typeof import('qrcode')> | undefined;
const qrcode = () => (library ??= import('qrcode'));

/** A QR code as an inline SVG document, for enrolment pages. */
export async function qrSvg(text: string): Promise<string> {
  return (await qrcode()).toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}

/** A QR code drawn with block characters, for the operator CLI. */
export async function qrTerminal(text: string): Promise<string> {
  return (await qrcode()).toString(text, { type: 'terminal', small: true, errorCorrectionLevel: 'M' });
}
