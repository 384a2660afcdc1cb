/**
 * Functions stay readable: none in src/ is longer than 120 lines, none in src/runner/ longer
 * than 80 (issue 29), `runBenchmark` is under 100 and `runLoad` under 150. Functions are found
 * with the TypeScript compiler's own parser (declarations, methods, arrows and function
 * expressions), and a line count is the span from the function's first line to its last.
 * LONG_FUNCTIONS would name a function still over the limit, with why (it is empty); the list
 * can only shrink: an entry that is no longer over the limit fails until it is removed.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const MAX_LINES = 120;
const MAX_RUNNER_LINES = 80;

/** `file: name` of the functions still over the limit, with the reason they are (none now). */
const LONG_FUNCTIONS: Record<string, string> = {};

interface Fn {
  file: string;
  name: string;
  lines: number;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every function of a source text with its line count. */
function functionsOf(file: string, text: string): Fn[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const out: Fn[] = [];
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const name =
        (node.name && ts.isIdentifier(node.name) && node.name.text) ||
        (ts.isVariableDeclaration(node.parent) &&
          ts.isIdentifier(node.parent.name) &&
          node.parent.name.text) ||
        (ts.isPropertyAssignment(node.parent) &&
          ts.isIdentifier(node.parent.name) &&
          node.parent.name.text) ||
        '(anonymous)';
      out.push({ file, name, lines: line(node.getEnd()) - line(node.getStart(source)) + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const all = sourceFiles(SRC).flatMap((path) =>
  functionsOf(relative(SRC, path).split('\\').join('/'), readFileSync(path, 'utf8')),
);
const limitOf = (f: Fn) => (f.file.startsWith('runner/') ? MAX_RUNNER_LINES : MAX_LINES);
const keyOf = (f: Fn) => `${f.file}: ${f.name}`;
const tooLong = all.filter((f) => f.lines > limitOf(f));
const named = (name: string) => all.find((f) => f.file.startsWith('runner/') && f.name === name);

describe('function lengths in src/', () => {
  it('finds the functions, nested ones included', () => {
    const found = functionsOf('x.ts', 'function a() {\n  const b = () => {\n    return 1;\n  };\n}\n');
    expect(found).toEqual([
      { file: 'x.ts', name: 'a', lines: 5 },
      { file: 'x.ts', name: 'b', lines: 3 },
    ]);
    expect(all.filter((f) => f.file.startsWith('runner/')).length).toBeGreaterThan(100);
    expect(all.length).toBeGreaterThan(1000);
  });

  it(`has no function over ${MAX_LINES} lines (${MAX_RUNNER_LINES} in runner/) but those listed`, () => {
    const unlisted = tooLong.filter((f) => !(keyOf(f) in LONG_FUNCTIONS));
    expect(unlisted.map((f) => `${keyOf(f)} (${f.lines} lines, at most ${limitOf(f)})`)).toEqual([]);
  });

  it('lists only functions that are still over the limit (a split one leaves the list)', () => {
    const over = new Set(tooLong.map(keyOf));
    expect(Object.keys(LONG_FUNCTIONS).filter((key) => !over.has(key))).toEqual([]);
  });

  it('runBenchmark is under 100 lines and runLoad under 150', () => {
    expect(named('runBenchmark')!.lines).toBeLessThan(100);
    expect(named('runLoad')!.lines).toBeLessThan(150);
  });
});
