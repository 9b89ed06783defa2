// The size rules of the source tree, checked so they stay true: a file does one job (≤ 400 lines) and a function
// fits on a screen or two (≤ 80 lines, a factory's inner functions counted inside it).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const maxFileLines = 400;
const maxFunctionLines = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function longFunctions(path: string, text: string): string[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart()).line;
      const lines = file.getLineAndCharacterOfPosition(node.end).line - first + 1;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
      if (lines > maxFunctionLines) found.push(`${path}:${first + 1} ${name} has ${lines} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the shape of src/', () => {
  const files = sourceFiles('src').map((path) => ({ path, text: readFileSync(path, 'utf8') }));

  it(`has no file over ${maxFileLines} lines`, () => {
    const long = files.filter((f) => f.text.split('\n').length > maxFileLines).map((f) => f.path);
    expect(long).toEqual([]);
  });

  it(`has no function over ${maxFunctionLines} lines`, () => {
    expect(files.flatMap((f) => longFunctions(f.path, f.text))).toEqual([]);
  });
});

describe('the text of the tree', () => {
  it('holds no merge-conflict markers', () => {
    const tracked = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'results' ? [] : tracked(path);
      return /\.(ts|js|lua|sql|md|json|ya?ml|html|css)$/.test(entry.name) ? [path] : [];
    });
    const files = ['src', 'test', 'bench', 'web', 'docs', 'deploy'].flatMap(tracked).concat('README.md');
    const marked = files.filter((path) => /^(<{7}|>{7}) /m.test(readFileSync(path, 'utf8')));
    expect(marked).toEqual([]);
  });
});
