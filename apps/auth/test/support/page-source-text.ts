/**
 * Words a page's source writes itself instead of taking them from its catalogue. Rules:
 * - in an `html` template, a text between tags and the shown attributes (aria-label, title,
 *   placeholder, alt) hold no word of two letters or more; a template nested in a `${…}` is read
 *   in the place it stands (an attribute fragment inside a tag is not page text);
 * - a call that puts text on a page (`pageCalls`: messagePage, a flash, a layout's title…) takes no
 *   string literal with words as an argument, nor as a `text`, `title`, `message` or `label` of an
 *   object argument, at any depth (an object with `says`, a way on, names its text by that: its
 *   `label` is the English fallback);
 * - an error code (`snake_case`) and a path are not words of a language; `allowed` names the few
 *   other exact texts a page shows as they are in every language.
 * Read with the TypeScript parser, so quotes, comments and nesting never confuse it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface LiteralPageText {
  /** The file, relative to the scanned folder, and the line where the text stands. */
  where: string;
  text: string;
}

export interface PageSourceOptions {
  /** Paths under the folder (prefixes, relative) whose pages are not checked. */
  skip?: readonly string[];
  /** Names of the functions whose text arguments end up on a page. */
  pageCalls?: readonly string[];
  /** Exact texts a page shows in every language. */
  allowed?: readonly string[];
}

const WORD = /\p{L}{2,}/u;
const CODE = /^[a-z]+(?:_[a-z]+)+$/;
const PATH = /^\/[\w/.-]*$/;
const SHOWN_ATTRIBUTES = /\s(aria-label|title|placeholder|alt)="([^"]*)"/g;
const TEXT_PROPERTIES = new Set(['text', 'title', 'message', 'label']);

const isHtml = (node: ts.Node): node is ts.TaggedTemplateExpression => ts.isTaggedTemplateExpression(node) && node.tag.getText() === 'html';

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

function templateParts(template: ts.TemplateLiteral): { parts: string[]; holes: ts.Expression[] } {
  if (ts.isNoSubstitutionTemplateLiteral(template)) return { parts: [template.text], holes: [] };
  return { parts: [template.head.text, ...template.templateSpans.map((span) => span.literal.text)], holes: template.templateSpans.map((span) => span.expression) };
}

/** The texts with words of one `html` template (and of the templates nested in it). */
function htmlTemplateText(node: ts.TaggedTemplateExpression, startsInTag: boolean, found: (text: string) => void): void {
  const { parts, holes } = templateParts(node.template);
  // A fragment that opens with an attribute (` id="…"`) stands inside its parent's tag.
  let inTag = startsInTag || /^\s+[a-z][\w-]*(=|$)/.test(parts[0] ?? '');
  let text = '';
  let tag = '';
  const endText = () => {
    const said = text.replace(/&#?\w+;/g, ' ').trim();
    if (WORD.test(said)) found(said);
    text = '';
  };
  const endTag = () => {
    for (const [, , value] of tag.matchAll(SHOWN_ATTRIBUTES)) if (value !== undefined && WORD.test(value)) found(value);
    tag = '';
  };
  parts.forEach((part, index) => {
    for (let at = 0; at < part.length; at++) {
      const char = part[at]!;
      if (!inTag && char === '<' && /[A-Za-z/!]/.test(part[at + 1] ?? '')) {
        endText();
        inTag = true;
      } else if (inTag && char === '>') {
        endTag();
        inTag = false;
      } else if (inTag) tag += char;
      else text += char;
    }
    const hole = holes[index];
    if (!hole) return;
    if (inTag) tag += '\u0000';
    else endText();
    const nested = (child: ts.Node): void => (isHtml(child) ? htmlTemplateText(child, inTag, found) : ts.forEachChild(child, nested));
    nested(hole);
  });
  if (inTag) endTag();
  else endText();
}

/** The literal text of a string or template literal (its fixed parts), else undefined. */
function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return templateParts(node).parts.join(' ');
  return undefined;
}

function callText(argument: ts.Expression, found: (text: string) => void): void {
  const own = literalText(argument);
  if (own !== undefined) {
    if (WORD.test(own)) found(own);
    return;
  }
  if (!ts.isObjectLiteralExpression(argument)) return;
  const names = argument.properties.map((property) => property.name?.getText());
  for (const property of argument.properties) {
    if (!ts.isPropertyAssignment(property)) continue;
    const name = property.name.getText();
    if (name === 'label' && names.includes('says')) continue;
    if (ts.isObjectLiteralExpression(property.initializer)) callText(property.initializer, found);
    else if (TEXT_PROPERTIES.has(name)) {
      const text = literalText(property.initializer);
      if (text !== undefined && WORD.test(text)) found(text);
    }
  }
}

/** Every text under `dir` that a page would show in English whatever its language. */
export function literalPageText(dir: string, options: PageSourceOptions = {}): LiteralPageText[] {
  const skip = options.skip ?? [];
  const pageCalls = new Set(options.pageCalls ?? []);
  const allowed = new Set(options.allowed ?? []);
  const texts: LiteralPageText[] = [];
  for (const path of sourceFiles(dir)) {
    const file = relative(dir, path);
    if (skip.some((prefix) => file.startsWith(prefix))) continue;
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const at = (node: ts.Node) => (text: string) => {
      if (CODE.test(text) || PATH.test(text) || allowed.has(text)) return;
      texts.push({ where: `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`, text });
    };
    const visit = (node: ts.Node): void => {
      if (isHtml(node)) return htmlTemplateText(node, false, at(node));
      if (ts.isCallExpression(node)) {
        const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : node.expression.getText();
        if (pageCalls.has(callee)) for (const argument of node.arguments) callText(argument, at(argument));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return texts;
}
