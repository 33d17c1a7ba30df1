/**
 * Writes assets/common-passwords.txt, the list accounts/password-policy.ts refuses, from the
 * password dictionary of @zxcvbn-ts/language-common (MIT; zxcvbn's list of the most frequent
 * passwords in public breach corpora, most frequent first). Rules:
 * - one password a line, lowercased (the check ignores case), duplicates after lowercasing
 *   dropped, the source's frequency order kept;
 * - the output depends only on the pinned package version, so re-running it changes nothing.
 * Run from apps/auth: `pnpm data:common-passwords`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const source = require.resolve('@zxcvbn-ts/language-common/src/passwords.json');
const passwords = JSON.parse(readFileSync(source, 'utf8')) as unknown;
if (!Array.isArray(passwords) || !passwords.every((p) => typeof p === 'string')) throw new Error(`${source}: not a list of strings`);

const seen = new Set<string>();
for (const password of passwords as string[]) {
  const lower = password.toLowerCase();
  if (lower !== '' && !/[\r\n]/.test(lower)) seen.add(lower);
}
const target = new URL('../assets/common-passwords.txt', import.meta.url);
writeFileSync(target, `${[...seen].join('\n')}\n`);
console.log(`wrote ${seen.size} passwords to ${target.pathname}`);
