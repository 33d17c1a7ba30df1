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

  it('keeps a quiet zone of 4 modules on every side (ISO/IEC 18004), in a square viewBox', async () => {
    const svg = await qrSvg(uri);
    const [, size] = /viewBox="0 0 (\d+) \1"/.exec(svg)!;
    const modules = Number(size) - 8;
    // Version n has 17 + 4n modules a side; the first dark run starts 4 modules in.
    expect((modules - 17) % 4).toBe(0);
    expect(svg).toContain('<path stroke="#000000" d="M4 4.5h7');
    const rows = [...svg.matchAll(/M(\d+) (\d+)\.5/g)].map((m) => Number(m[2]));
    expect(Math.min(...rows)).toBe(4);
    expect(Math.max(...rows)).toBe(Number(size) - 5);
  });

  it('renders a block-character code for terminals', async () => {
    const text = await qrTerminal(uri);
    expect(text.split('\n').length).toBeGreaterThan(20);
    expect(text).toMatch(/[▀▄█]/);
  });
});
