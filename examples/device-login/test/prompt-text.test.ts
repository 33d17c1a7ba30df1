import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { promptText } from '../src/prompt-text.ts';

const prompt = { verificationUri: 'https://id.example.com/activate', userCode: 'BCDF-GHJK', expiresIn: 600 };

describe('the command line prompt', () => {
  it('names the page and the code, then a QR code of the complete URI for a phone', async () => {
    const complete = 'https://id.example.com/activate?user_code=BCDF-GHJK';
    const text = await promptText({ ...prompt, verificationUriComplete: complete });
    const lines = text.split('\n');
    expect(lines[0]).toBe('To sign in, open https://id.example.com/activate and enter the code BCDF-GHJK');
    expect(lines[1]).toBe('Or scan this code with your phone:');
    // The QR code of exactly the complete URI: its modules as the library reads them back.
    const qr = QRCode.create(complete, {});
    const visible = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, '');
    const drawn = lines.slice(2, lines.indexOf(`(${complete})`)).map(visible).filter((line) => line !== '');
    // Two rows of modules per line (half blocks), with a quiet zone of one module on each side.
    expect(drawn).toHaveLength(Math.ceil((qr.modules.size + 2) / 2));
    expect(drawn.every((line) => [...line].length === qr.modules.size + 2 && /^[ ▄▀█]+$/.test(line))).toBe(true);
    expect(lines.at(-2)).toBe('The code expires in 10 minutes. Waiting for the approval…');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('without a complete URI, only the page, the code and the lifetime (never less than a minute)', async () => {
    expect(await promptText({ ...prompt, verificationUriComplete: undefined, expiresIn: 20 })).toBe(
      'To sign in, open https://id.example.com/activate and enter the code BCDF-GHJK\nThe code expires in 1 minutes. Waiting for the approval…\n',
    );
  });
});
