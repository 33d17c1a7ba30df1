/**
 * A step of `pnpm lint`: source comments state rules, not the history of how they were found.
 * Rules, checked in every comment of the TypeScript and JavaScript sources under apps/, packages/,
 * bench/, e2e/ and scripts/ (dependencies, build output and markdown aside):
 * - no comment names an issue by number (`issue 13`, `issue #13`): the tracker is history;
 * - no comment names a benchmark pass (`tenth pass`, `12th pass`, `pass 5`, `benchmark pass`);
 * - a comment that cites bench/README.md does so once, as `bench/README.md, "<section>"`, where
 *   <section> is a heading of bench/README.md (`##` or deeper), so the link stays stable while the
 *   figures behind it change;
 * - no comment states a measured figure: a number followed by `×` (or `x` right after it), `req/s`,
 *   `µs`, `ms per` or `MB of RSS` (the figures live in bench/README.md);
 * - no comment narrates the code's history: `used to` after a subject (`it used to`) or before
 *   `be`, `before/after/since this change` (or refactor, rewrite, fix), `formerly`,
 *   `anymore`, `previously` (but `previously issued` and other participles of the domain), and
 *   `no longer` except where it states a domain state (`no longer exists`, `loads`, `active`, …).
 * Run by `pnpm lint`; prints one line per finding (`file:line: what`) and exits 1 if there is any.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const TREES = ['apps', 'packages', 'bench', 'e2e', 'scripts'];
const SKIP = new Set(['node_modules', 'dist', 'public', 'test-results', 'playwright-report', 'coverage', '.turbo']);
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
/** This file names what it looks for. */
const SELF = resolve(import.meta.filename);

/** Only a file with one of these words can have a finding; the others are not parsed. */
const CANDIDATE = /issue|pass|bench\/README|×|\dx\b|req\/s|µs|μs|ms per|MB|used to|this change|formerly|anymore|previously|no longer/i;
const ISSUE = /\bissue\s+#?\d+/i;
const ORDINAL = 'first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|\\d+(?:st|nd|rd|th)';
const PASS = new RegExp(`\\b(?:(?:${ORDINAL})\\s+pass(?:es)?|pass\\s+\\d+|bench(?:mark)?\\s+pass(?:es)?)\\b`, 'i');
/** A measured figure: a ratio, a throughput, a CPU time, a per-request time or a memory reading. */
const FIGURE = /(?<![\w.,])\d+(?:[.,]\d+)*\s*(?:×|req\/s\b|[µμ]s\b|ms\s+per\b|MB\s+(?:of\s+)?RSS\b)|(?<![\w.,])\d+(?:\.\d+)?x\b/g;
/** Words that tell what the code was, not what it does. */
const DOMAIN_AFTER_NO_LONGER = 'than|be|exists?|finds?|stored|shows?|active|valid|knows?|verif(?:y|ies)|sign(?:s)?\\s+in|loads?|stands?|pending';
const HISTORY = new RegExp(
  [
    '\\b(?:we|it|this|that|they|which|there|code|server|module|function)\\s+used\\s+to\\b',
    '\\bused\\s+to\\s+be\\b',
    '\\b(?:before|after|since|until)\\s+(?:this|that|the)\\s+(?:change|refactor(?:ing)?|rewrite|fix)\\b',
    '\\bformerly\\b',
    '\\banymore\\b',
    '\\bpreviously\\b(?!\\s+(?:issued|stored|seen|used|signed|granted|revoked|registered|consented|consumed))',
    `\\bno\\s+longer\\b(?!\\s+(?:${DOMAIN_AFTER_NO_LONGER})\\b)`,
  ].join('|'),
  'gi',
);
const CITE = /bench\/README\.md/g;
// The link may wrap onto the comment's next line.
const STABLE_CITE = /bench\/README\.md,(?:\s|\*|\/\/)*"([^"]+)"/g;
/** The comment with each line's leading `*` or `//` blanked (same length), so a phrase can wrap. */
const flat = (text: string): string => text.replace(/(\n[ \t]*)(\*(?!\/)|\/\/)/g, (_, start: string, mark: string) => start + ' '.repeat(mark.length));
const unwrap = (title: string): string => title.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' ').trim();

/** The section titles of bench/README.md (its `##` and deeper headings). */
function readmeSections(): Set<string> {
  const text = readFileSync(join(ROOT, 'bench', 'README.md'), 'utf8');
  return new Set([...text.matchAll(/^#{2,}\s+(.+?)\s*#*\s*$/gm)].map((m) => m[1]!));
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (SOURCE.test(entry.name) && path !== SELF) yield path;
  }
}

/** Every comment of `text` (parsed, so `//` in a string, template or regular expression is none), with the line it starts on (1-based). */
function comments(text: string): { line: number; text: string }[] {
  const file = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (pos: number, end: number): void => {
    for (const range of [...(ts.getLeadingCommentRanges(text, pos) ?? []), ...(ts.getTrailingCommentRanges(text, end) ?? [])]) ranges.set(range.pos, range);
  };
  const visit = (node: ts.Node): void => {
    collect(node.pos, node.end);
    node.getChildren(file).forEach(visit);
  };
  visit(file);
  return [...ranges.values()]
    .sort((a, b) => a.pos - b.pos)
    .map((range) => ({ line: file.getLineAndCharacterOfPosition(range.pos).line + 1, text: text.slice(range.pos, range.end) }));
}

/** The findings in one file's comments, as `line: what`. */
function checkComments(text: string, sections: ReadonlySet<string>): string[] {
  const findings: string[] = [];
  for (const comment of comments(text)) {
    const at = (offset: number): number => comment.line + (comment.text.slice(0, offset).match(/\n/g)?.length ?? 0);
    const issue = ISSUE.exec(comment.text);
    if (issue) findings.push(`${at(issue.index)}: names an issue by number ("${issue[0]}"); state the rule instead`);
    for (const figure of comment.text.matchAll(FIGURE)) {
      findings.push(`${at(figure.index)}: states a measured figure ("${figure[0]}"); state the rule and cite bench/README.md, "<section>"`);
    }
    for (const history of flat(comment.text).matchAll(HISTORY)) {
      findings.push(`${at(history.index)}: narrates history ("${history[0].replace(/\s+/g, ' ')}"); state the rule as it stands`);
    }
    const pass = PASS.exec(comment.text);
    if (pass) findings.push(`${at(pass.index)}: names a benchmark pass ("${pass[0]}"); state the rule and cite bench/README.md, "<section>"`);
    const cites = [...comment.text.matchAll(CITE)];
    const stable = [...comment.text.matchAll(STABLE_CITE)];
    if (cites.length > 1) findings.push(`${at(cites[1]!.index)}: cites bench/README.md more than once; keep one link`);
    if (cites.length > 0 && stable.length === 0) {
      findings.push(`${at(cites[0]!.index)}: cites bench/README.md without a section; write bench/README.md, "<section>"`);
    }
    for (const cite of stable) {
      const title = unwrap(cite[1]!);
      if (!sections.has(title)) findings.push(`${at(cite.index)}: bench/README.md has no section "${title}"`);
    }
  }
  return findings;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sections = readmeSections();
  let count = 0;
  for (const tree of TREES) {
    for (const file of sourceFiles(join(ROOT, tree))) {
      const text = readFileSync(file, 'utf8');
      if (!CANDIDATE.test(text)) continue;
      for (const finding of checkComments(text, sections)) {
        process.stdout.write(`${relative(ROOT, file)}:${finding}\n`);
        count++;
      }
    }
  }
  if (count > 0) {
    process.stdout.write(`check-comments: ${count} finding${count === 1 ? '' : 's'}; comments state the rule, never its history (docs/conventions.md)\n`);
    process.exit(1);
  }
}
