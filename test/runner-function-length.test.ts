/**
 * The runner stays readable: no function in src/runner/ is longer than 80 lines, `runBenchmark`
 * is under 100 and `runLoad` under 150 (issue 29). Functions are found with the TypeScript
 * compiler's own parser (declarations, methods, arrows and function expressions), and a line
 * count is the span from the function's first line to its last.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const RUNNER = join(import.meta.dirname, '..', 'src', 'runner');
const MAX_LINES = 80;
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

const all = sourceFiles(RUNNER).flatMap((path) =>
  functionsOf(relative(RUNNER, path), readFileSync(path, 'utf8')),
);
const named = (name: string) => all.find((f) => f.name === name);

describe('function lengths in src/runner/', () => {
  it('finds the functions, nested ones included', () => {
    const found = functionsOf('x.ts', 'function a() {\n  const b = () => {\n    return 1;\n  };\n}\n');
    expect(found).toEqual([
      { file: 'x.ts', name: 'a', lines: 5 },
      { file: 'x.ts', name: 'b', lines: 3 },
    ]);
    expect(all.length).toBeGreaterThan(100);
  });

  it(`has no function over ${MAX_LINES} lines`, () => {
    const long = all.filter((f) => f.lines > MAX_LINES);
    expect(long.map((f) => `${f.file}: ${f.name} (${f.lines} lines)`)).toEqual([]);
  });

  it('runBenchmark is under 100 lines and runLoad under 150', () => {
    expect(named('runBenchmark')!.lines).toBeLessThan(100);
    expect(named('runLoad')!.lines).toBeLessThan(150);
  });
});
