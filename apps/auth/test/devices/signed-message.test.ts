import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as browser from '../../public/authenticator/signed-message.js';
import * as server from '../../src/devices/signed-request.ts';
import { newKeyPair, publicJwk, signWith } from '../support/push.ts';

describe('the signed-message module shared by the web authenticator and the server', () => {
  it('is the module the server verifies with: the same functions, not a copy', () => {
    expect(server.SIGNATURE_CONTEXT).toBe(browser.SIGNATURE_CONTEXT);
    expect(server.enrollMessage).toBe(browser.enrollMessage);
    expect(server.listMessage).toBe(browser.listMessage);
    expect(server.answerMessage).toBe(browser.answerMessage);
    expect(server.normalizeEnrollmentCode).toBe(browser.normalizeEnrollmentCode);
    expect(server.reportMessage).toBe(browser.reportMessage);
  });

  it('builds the documented messages', () => {
    expect(browser.enrollMessage('C0DE')).toBe('gatehouse-authenticator-v1.enroll.C0DE');
    // An enrollment code is signed in its normal form, however it was typed.
    expect(browser.enrollMessage('abcd-efgh ijkl-mnop')).toBe('gatehouse-authenticator-v1.enroll.ABCDEFGH1JK1MN0P');
    expect(browser.reportMessage('tx', 'dev')).toBe('gatehouse-authenticator-v1.report.tx.dev');
    expect(browser.listMessage('dev', '1790000000000', 'n0nce')).toBe('gatehouse-authenticator-v1.list.dev.1790000000000.n0nce');
    expect(browser.answerMessage('tx', 'approve', '42', 'dev')).toBe('gatehouse-authenticator-v1.answer.tx.approve.42.dev');
    expect(browser.answerMessage('tx', 'deny', '', 'dev')).toBe('gatehouse-authenticator-v1.answer.tx.deny..dev');
  });

  it('a WebCrypto signature of a message the browser module built passes the server verification, for every purpose', async () => {
    const pair = await newKeyPair();
    const jwk = (await server.parsePublicKey(await publicJwk(pair)))!;
    const cases: [string, string, string][] = [
      [browser.enrollMessage('c0de'), server.enrollMessage('c0de'), server.enrollMessage('c0df')],
      [browser.listMessage('dev', '1790000000000', 'n0nce'), server.listMessage('dev', '1790000000000', 'n0nce'), server.listMessage('dev', '1790000000001', 'n0nce')],
      [browser.answerMessage('tx', 'approve', '42', 'dev'), server.answerMessage('tx', 'approve', '42', 'dev'), server.answerMessage('tx', 'deny', '42', 'dev')],
      [browser.reportMessage('tx', 'dev'), server.reportMessage('tx', 'dev'), server.answerMessage('tx', 'deny', '', 'dev')],
    ];
    for (const [signedByBrowser, verifiedByServer, other] of cases) {
      const signature = await signWith(pair.privateKey, signedByBrowser);
      expect(await server.verifySignature(jwk, verifiedByServer, signature)).toBe(true);
      expect(await server.verifySignature(jwk, other, signature)).toBe(false);
    }
  });

  it('app.js builds no message of its own: it imports all four from the shared module', () => {
    const app = readFileSync(new URL('../../public/authenticator/app.js', import.meta.url), 'utf8');
    expect(app).toContain("import { answerMessage, enrollMessage, listMessage, reportMessage } from './signed-message.js';");
    expect(app).not.toContain(browser.SIGNATURE_CONTEXT);
    expect(app).not.toMatch(/\.(enroll|list|answer|report)\./);
    for (const builder of ['enrollMessage(', 'listMessage(', 'answerMessage(', 'reportMessage(']) expect(app).toContain(builder);
  });
});
