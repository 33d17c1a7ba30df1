import { describe, expect, it } from 'vitest';
import { qrSvg, qrTerminal } from '../../src/mfa/qr.ts';

const uri = 'otpauth://totp/Gatehouse:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Gatehouse';

describe('qr', () => {
  it('renders an SVG document without the encoded text in clear', async () => {
    const svg = await qrSvg(uri);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).not.toContain('GEZDGNBV');
    expect(svg).not.toMatch(/<script/i);
  });

  it('renders a block-character code for terminals', async () => {
    const text = await qrTerminal(uri);
    expect(text.split('\n').length).toBeGreaterThan(20);
    expect(text).toMatch(/[▀▄█]/);
  });
});
