import { describe, expect, it } from 'vitest';
import { groupedKey, recoveryCodesBlock, totpKeyBlock } from '../../src/views/recovery-codes-block.ts';
import { enrollmentPage, recoveryCodesPage } from '../../src/views/devices-page.ts';

const codes = ['aaaa-bbbb-cccc-dddd', 'eeee-ffff-gggg-hhhh'];

describe('recovery codes and TOTP keys as people copy them', () => {
  it('groups a key in fours and copies it whole', () => {
    expect(groupedKey('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')).toBe('ABCD EFGH IJKL MNOP QRST UVWX YZ23 4567');
    expect(groupedKey('ABCDEF')).toBe('ABCD EF');
    expect(String(totpKeyBlock('ABCDEFGH'))).toContain('<code id="totp-secret" class="totp-key" data-value="ABCDEFGH">ABCD EFGH</code>');
  });

  it('lists codes one per line with Copy, Download and Print, hidden until the script shows them', () => {
    const block = String(recoveryCodesBlock(codes));
    expect(block).toContain('<ol id="recovery-codes" class="code-list"><li><code>aaaa-bbbb-cccc-dddd</code></li><li><code>eeee-ffff-gggg-hhhh</code></li></ol>');
    expect(block).toContain('<button type="button" class="secondary small" data-copy="recovery-codes" hidden>Copy</button>');
    expect(block).toContain('data-download="recovery-codes" data-filename="gatehouse-recovery-codes.txt" hidden>Download</button>');
    expect(block).toContain('data-print hidden>Print</button>');
  });

  it('the account page\'s new codes and a first device\'s codes come with the buttons and their script', () => {
    for (const page of [recoveryCodesPage({ username: 'alice', codes }), enrollmentPage({ username: 'alice', code: 'x', url: 'https://a.example/e', qrSvg: '<svg></svg>', expiresInSeconds: 600, recoveryCodes: codes })]) {
      expect(page).toContain('<script src="/static/copy-codes.js" defer></script>');
      expect(page).toContain('data-download="recovery-codes"');
    }
    expect(enrollmentPage({ username: 'alice', code: 'x', url: 'https://a.example/e', qrSvg: '<svg></svg>', expiresInSeconds: 0 })).not.toContain('copy-codes.js');
  });
});
