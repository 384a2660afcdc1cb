/**
 * The module graph of src/: which module imports which, read from the import and export
 * statements (static and dynamic) of every source file, and checked against the "may
 * import" table of docs/architecture.md. Used by test/architecture.test.ts.
 *
 * A module is a folder under src/ (`runner`, `report/html`) or a top-level file (`types`,
 * `errors`, `index`); a file belongs to the longest module name that contains it.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** module → the modules it imports (never itself). */
export type ModuleGraph = Map<string, Set<string>>;

/** One edge and a file that makes it, for messages. */
export interface Edge {
  from: string;
  to: string;
  file: string;
}

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

/** The relative specifiers a source text imports (static, re-exports, dynamic, side-effect). */
export function importSpecifiers(source: string): string[] {
  const noComments = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of noComments.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec?.startsWith('.')) out.push(spec);
  }
  return out;
}

/** The pseudo-module of every command file: a module's CLI face, kept apart from the module's library code. */
export const COMMANDS_MODULE = 'commands';

/** True for a command file: `<module>/command.ts`, `<module>/<name>-command.ts`, `cli/commands/*`. */
export function isCommandFile(path: string): boolean {
  return /(^|\/)([a-z-]+-)?command\.(ts|js)$/.test(path) || path.startsWith('cli/commands/');
}

/**
 * The module a path (relative to src, with '/' separators) belongs to: `commands` for a
 * command file, else the longest known module name that contains it.
 */
export function moduleOf(path: string, modules: readonly string[]): string {
  if (isCommandFile(path)) return COMMANDS_MODULE;
  const noExt = path.replace(/\.(ts|js)$/, '');
  let best = '';
  for (const m of modules) {
    if ((noExt === m || noExt.startsWith(`${m}/`)) && m.length > best.length) best = m;
  }
  if (best === '') throw new Error(`${path} belongs to no module of the table`);
  return best;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
      out.push(path);
  }
  return out;
}

/** Every cross-module edge of the source files under srcDir (tests excluded). */
export function readEdges(srcDir: string, modules: readonly string[]): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(srcDir)) {
    const rel = relative(srcDir, file).split(sep).join('/');
    const from = moduleOf(rel, modules);
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      const target = normalize(join(dirname(file), spec));
      const targetRel = relative(srcDir, target).split(sep).join('/');
      if (targetRel.startsWith('..')) continue; // package.json and the like
      const to = moduleOf(targetRel, modules);
      if (to !== from) edges.push({ from, to, file: rel });
    }
  }
  return edges;
}

export function toGraph(edges: readonly Edge[]): ModuleGraph {
  const graph: ModuleGraph = new Map();
  for (const e of edges) {
    if (!graph.has(e.from)) graph.set(e.from, new Set());
    graph.get(e.from)!.add(e.to);
  }
  return graph;
}

/** The "may import" table: module → modules it may import. Every backticked name in a cell counts. */
export type AllowTable = Map<string, Set<string>>;

const EVERYONE = '*';

/**
 * Parses the "## Modules" table of docs/architecture.md. The first cell names one or more
 * modules in backticks (`runner/`, `types.ts`); the third lists, in backticks, the modules
 * they may import, or `*` when any. Free text around the backticks is ignored.
 */
export function parseAllowTable(markdown: string): AllowTable {
  const table: AllowTable = new Map();
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Modules'));
  if (!section) throw new Error('docs/architecture.md has no "## Modules" section');
  const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => normaliseName(m[1]!));
  for (const line of section.split('\n')) {
    if (!line.startsWith('|') || /^\|\s*-/.test(line)) continue;
    const cells = line.split('|').slice(1, -1);
    if (cells.length < 3) continue;
    const modules = names(cells[0]!);
    if (modules.length === 0) continue; // header row
    const allowed = new Set(names(cells[2]!));
    for (const m of modules) table.set(m, allowed);
  }
  if (table.size === 0) throw new Error('the Modules table of docs/architecture.md has no rows');
  return table;
}

function normaliseName(name: string): string {
  if (name === EVERYONE) return EVERYONE;
  return name
    .replace(/^src\//, '')
    .replace(/\/$/, '')
    .replace(/\.ts$/, '');
}

/** Edges the table does not allow. */
export function forbiddenEdges(edges: readonly Edge[], table: AllowTable): Edge[] {
  return edges.filter((e) => {
    const allowed = table.get(e.from);
    if (!allowed) return true;
    return !allowed.has(EVERYONE) && !allowed.has(e.to);
  });
}

/** One cycle of the graph as a path [a, b, ..., a], or undefined when it has none. */
export function findCycle(graph: ModuleGraph): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      const s = state.get(next);
      if (s === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (s === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.get(node) === undefined) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The file graph under `dir` (tests excluded): each source file (relative to dir) → the files
 * under dir it imports, type-only imports included. For a cycle check inside one module.
 */
export function fileGraph(dir: string): ModuleGraph {
  const graph: ModuleGraph = new Map();
  for (const file of sourceFiles(dir)) {
    const from = relative(dir, file).split(sep).join('/');
    const to = new Set<string>();
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      const target = relative(dir, normalize(join(dirname(file), spec)))
        .split(sep)
        .join('/');
      if (!target.startsWith('..')) to.add(target.replace(/\.js$/, '.ts'));
    }
    graph.set(from, to);
  }
  return graph;
}
