/**
 * Housekeeping of src/: no export that nothing imports (dead code: not imported by any file of
 * src/, test/, bench/ or scripts/, not exported by the library entry src/index.ts, not used in
 * its own file), and no test helper among the production files (they live in test/helpers/,
 * and production code imports nothing from test/). The checker is shown to fail on a small tree.
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importSpecifiers } from './helpers/import-graph.js';
import { unusedExports } from './helpers/unused-exports.js';

const ROOT = join(import.meta.dirname, '..');

describe('src/ exports', () => {
  it('has no export that nothing imports (src/index.ts, the library entry, counts as importing)', () => {
    expect(unusedExports(ROOT)).toEqual([]);
  });
});

describe('the unused-export checker', () => {
  const root = mkdtempSync(join(tmpdir(), 'goodput-exports-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'src/index.ts': "export { api } from './a/index.js';\n",
    'src/a/index.ts': "export { api, helper, unusedHere } from './a.js';\nexport * from './b.js';\n",
    'src/a/a.ts': [
      'export function api() { return 1; }',
      'export const helper = 2;',
      '/** used nowhere */',
      'export const unusedHere = 3;',
      'export type Shape = { x: number };',
      'export function local(s: Shape) { return s.x; }',
      'export const dead = 4;',
    ].join('\n'),
    'src/a/b.ts': 'export const viaStar = 5;\nexport const starDead = 6;\n',
    'src/c/c.ts': "import { helper } from '../a/index.js';\nimport { viaStar } from '../a/index.js';\n",
    'src/d/d.ts': 'export interface Loaded { x: number }\nexport const loaded = 7;\n',
    'src/e/e.ts': "export async function load() { return import('../d/d.js'); }\n",
    'test/t.test.ts': "import { local } from '../src/a/a.js';\nimport { load } from '../src/e/e.js';\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }

  it('names exports imported nowhere, through re-exports and stars, and nothing else', () => {
    // api: the library entry; helper, viaStar: imported through the index; local: a test
    // imports it; Shape: used in its file; d.ts: loaded by a dynamic import.
    expect(unusedExports(root)).toEqual(['src/a/a.ts#dead', 'src/a/a.ts#unusedHere', 'src/a/b.ts#starDead']);
  });
});

describe('test helpers live under test/', () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? sources(join(dir, e.name)) : [join(dir, e.name)],
    );
  const production = sources(join(ROOT, 'src')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

  it('no production file of src/ is a test helper (testing.ts, a testing/ folder)', () => {
    const helpers = production
      .map((f) => relative(ROOT, f))
      .filter((f) => /(^|\/)testing(\/|\.ts$)/.test(f.split('\\').join('/')));
    expect(helpers).toEqual([]);
  });

  it('no production file of src/ imports from test/', () => {
    const offenders = production.filter((f) =>
      importSpecifiers(readFileSync(f, 'utf8')).some((spec) =>
        relative(ROOT, join(dirname(f), spec)).startsWith('test'),
      ),
    );
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });
});
