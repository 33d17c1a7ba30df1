import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, ConfigProblems, readSecretFiles } from '../src/index.ts';

function problemsOf(problems: ConfigProblems): readonly string[] {
  try {
    problems.throwIfAny();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('readSecretFiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gh-secret-files-'));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  it('reads NAME from NAME_FILE, without the trailing line break, and drops NAME_FILE', () => {
    const problems = new ConfigProblems();
    const env = readSecretFiles({ A: undefined, A_FILE: file('a', 'first\n'), B_FILE: file('b', 'second\r\n'), C: 'plain', OTHER: 'x' }, ['A', 'B', 'C'], problems);
    expect(env).toEqual({ A: 'first', B: 'second', C: 'plain', OTHER: 'x' });
    expect(problems.size).toBe(0);
  });

  it('keeps inner line breaks and spaces: only the end is trimmed, and only of line breaks', () => {
    const problems = new ConfigProblems();
    expect(readSecretFiles({ A_FILE: file('multi', ' one\ntwo \n\n') }, ['A'], problems)).toEqual({ A: ' one\ntwo ' });
  });

  it('refuses both set, an unreadable file and an empty one, naming the variable and the path, never the content', () => {
    const problems = new ConfigProblems();
    const both = file('both', 'from-file');
    const missing = join(dir, 'missing');
    const empty = file('empty', '\n');
    const env = readSecretFiles({ A: 'inline', A_FILE: both, B_FILE: missing, C_FILE: empty, D_FILE: dir }, ['A', 'B', 'C', 'D'], problems);
    expect(problemsOf(problems)).toEqual([
      'A_FILE: set either A or A_FILE, not both',
      `B_FILE: cannot read ${missing}: no such file`,
      `C_FILE: ${empty} is empty`,
      `D_FILE: cannot read ${dir}: is a directory`,
    ]);
    expect(env).toEqual({});
  });

  it('says permission denied for a file the process may not read', () => {
    const path = file('locked', 'x');
    const problems = new ConfigProblems();
    readSecretFiles({ A_FILE: path }, ['A'], problems, (p) => {
      throw Object.assign(new Error(`EACCES: permission denied, open '${p}'`), { code: 'EACCES' });
    });
    expect(problemsOf(problems)).toEqual([`invalid setting A_FILE: cannot read ${path}: permission denied`]);
  });
});
