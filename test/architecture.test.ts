/**
 * The import graph of src/ against the "may import" table of docs/architecture.md: every
 * import between modules is allowed by the table, and no module reaches itself again.
 * The checker itself is tested on small graphs, so a forbidden edge or a cycle is shown to fail.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMMANDS_MODULE,
  type Edge,
  fileGraph,
  findCycle,
  forbiddenEdges,
  importSpecifiers,
  isCommandFile,
  moduleOf,
  parseAllowTable,
  readEdges,
  toGraph,
} from './helpers/import-graph.js';

const ROOT = join(import.meta.dirname, '..');
const table = parseAllowTable(readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8'));
const modules = [...table.keys()];
const edges = readEdges(join(ROOT, 'src'), modules);

const describeEdge = (e: Edge) =>
  `src/${e.file} (module ${e.from}) imports ${e.to}: not in the "may import" column of ${e.from}'s row in docs/architecture.md`;

describe('src/ against docs/architecture.md', () => {
  it('reads a table with every module', () => {
    for (const m of ['types', 'errors', 'util', 'runner', 'flags', 'cli', COMMANDS_MODULE, 'index']) {
      expect(table.has(m), m).toBe(true);
    }
    // a sanity check that the reader sees the real graph
    expect(edges.some((e) => e.from === 'runner' && e.to === 'client')).toBe(true);
  });

  it('imports only what the table allows', () => {
    expect(forbiddenEdges(edges, table).map(describeEdge)).toEqual([]);
  });

  it('has no cycle between modules', () => {
    expect(findCycle(toGraph(edges))).toBeUndefined();
  });

  it('has no import cycle between the files of runner/ (its folders included)', () => {
    const runner = fileGraph(join(ROOT, 'src', 'runner'));
    expect(runner.has('benchmark.ts') && runner.has('workers/pool.ts')).toBe(true);
    expect(findCycle(runner)).toBeUndefined();
  });

  it('keeps parsed flags out of library code: only command files and cli import flags/', () => {
    const offenders = edges.filter((e) => e.to === 'flags' && !['cli', COMMANDS_MODULE].includes(e.from));
    expect(offenders.map((e) => `src/${e.file}`)).toEqual([]);
    expect(edges.filter((e) => e.to === 'cli').map((e) => `src/${e.file}`)).toEqual([]);
  });
});

describe('the checker', () => {
  const doc = `# x

## Modules

| module | job | may import |
|---|---|---|
| \`types.ts\` | contracts | — |
| \`a/\` | a | \`types\` |
| \`b/\`, \`c/\` | b and c | \`a\`, \`types\` (only types) |
| \`top\` | the top | \`*\` |

## Next
| \`z/\` | not in the section | \`*\` |
`;

  it('parses module names and allowed imports from backticks only', () => {
    const t = parseAllowTable(doc);
    expect([...t.keys()]).toEqual(['types', 'a', 'b', 'c', 'top']);
    expect([...t.get('b')!]).toEqual(['a', 'types']);
    expect(t.get('types')!.size).toBe(0);
  });

  it('reports an edge the table does not allow, and allows * and listed ones', () => {
    const t = parseAllowTable(doc);
    const ok: Edge[] = [
      { from: 'b', to: 'a', file: 'b/x.ts' },
      { from: 'top', to: 'c', file: 'top/y.ts' },
    ];
    const bad: Edge = { from: 'a', to: 'b', file: 'a/index.ts' };
    const unknown: Edge = { from: 'q', to: 'types', file: 'q/index.ts' };
    expect(forbiddenEdges(ok, t)).toEqual([]);
    expect(forbiddenEdges([...ok, bad, unknown], t)).toEqual([bad, unknown]);
  });

  it('finds a cycle when one edge closes a loop, and none without it', () => {
    const acyclic: Edge[] = [
      { from: 'a', to: 'b', file: '' },
      { from: 'b', to: 'c', file: '' },
      { from: 'a', to: 'c', file: '' },
    ];
    expect(findCycle(toGraph(acyclic))).toBeUndefined();
    const cycle = findCycle(toGraph([...acyclic, { from: 'c', to: 'a', file: '' }]));
    expect(cycle).toEqual(['a', 'b', 'c', 'a']);
  });

  it('finds a cycle between files when one file imports back the file that imports it', () => {
    const runner = fileGraph(join(ROOT, 'src', 'runner'));
    expect(findCycle(runner)).toBeUndefined();
    // benchmark.ts imports plan.ts, which imports run-workload.ts: a type import back closes a loop.
    runner.get('run-workload.ts')!.add('benchmark.ts');
    expect(findCycle(runner)).toEqual(['benchmark.ts', 'plan.ts', 'run-workload.ts', 'benchmark.ts']);
  });

  it('fails the real graph when a forbidden edge or a cycle is added', () => {
    const withBack = [...edges, { from: 'runner', to: 'flags', file: 'runner/extra.ts' }];
    expect(forbiddenEdges(withBack, table).map((e) => e.file)).toEqual(['runner/extra.ts']);
    expect(findCycle(toGraph(withBack))).toContain('runner');
  });

  it('reads static, re-export, dynamic and side-effect imports, not comments or packages', () => {
    const src = `import { a } from './a.js';
import type { B } from '../b/index.js';
export { c } from './c.js';
export * from '../d/index.js';
const e = await import('../e/index.js');
import './f.js';
import { z } from 'zod';
// import { g } from './g.js';
/* import { h } from './h.js'; */
const url = 'http://x/y'; // import('./i.js')
`;
    expect(importSpecifiers(src)).toEqual([
      './a.js',
      '../b/index.js',
      './c.js',
      '../d/index.js',
      '../e/index.js',
      './f.js',
    ]);
  });

  it('puts command files in the commands module and other files in the longest module', () => {
    const mods = ['report', 'report/html', 'cli', 'types'];
    expect(isCommandFile('report/html/command.ts')).toBe(true);
    expect(isCommandFile('watch/history-command.ts')).toBe(true);
    expect(isCommandFile('cli/commands/run.ts')).toBe(true);
    expect(isCommandFile('cli/dispatch.ts')).toBe(false);
    expect(moduleOf('report/html/render.ts', mods)).toBe('report/html');
    expect(moduleOf('report/terminal.ts', mods)).toBe('report');
    expect(moduleOf('types.ts', mods)).toBe('types');
    expect(moduleOf('cli/commands/run.ts', mods)).toBe(COMMANDS_MODULE);
    expect(() => moduleOf('newmod/x.ts', mods)).toThrow(/no module of the table/);
  });
});
