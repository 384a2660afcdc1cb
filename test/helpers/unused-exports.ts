/**
 * Finds the exports of src/ that nothing imports: a reading (regular expressions on the text
 * without comments, as import-graph.ts reads imports) of every import and re-export in src/, test/,
 * bench/ and scripts/ (whose `.mjs` files import the built `dist/src/…` files, mapped back to
 * src). An export counts as used when some file imports it, directly or through re-exports
 * (a module's index.ts), or when the library entry src/index.ts exports it. A re-export alone
 * is not a use, and neither is a use inside the exporting file.
 *
 * A namespace import (`import * as m`) and a dynamic `import()` count as using every export of
 * the module they load (the commands are loaded that way).
 *
 * @module
 */

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

interface FileExports {
  /** Names declared and exported here. */
  local: Set<string>;
  /** Exported name → [file, name there] it re-exports. */
  reexports: Map<string, [string, string]>;
  /** Files re-exported whole (`export * from`). */
  stars: string[];
}

/** One import of a name from a file ('*' for all of them). */
interface Use {
  file: string;
  name: string;
}

function walk(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path, keep));
    else if (keep(entry.name)) out.push(path);
  }
  return out;
}

const isSource = (name: string) => /\.(ts|mts|mjs|js)$/.test(name) && !name.endsWith('.d.ts');

/** The source file a specifier names: `./x.js` → `./x.ts`; `…/dist/src/x.js` → `src/x.ts`. */
function resolveSpecifier(root: string, from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  let target = resolve(dirname(from), spec);
  const dist = join(root, 'dist', 'src') + sep;
  if (target.startsWith(dist)) target = join(root, 'src', target.slice(dist.length));
  for (const candidate of [target.replace(/\.js$/, '.ts'), target, `${target}.ts`]) {
    if (existsSync(candidate) && !candidate.endsWith(sep)) return candidate;
  }
  return undefined;
}

const NAME = /^[A-Za-z_$][\w$]*$/;
const LOCAL_EXPORT =
  /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:const\s+enum|const|let|var|function\*?|abstract\s+class|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
const EXPORT_LIST = /^export\s+(?:type\s+)?\{([^}]*)\}(?:\s*from\s*['"]([^'"]+)['"])?/gm;
const EXPORT_STAR = /^export\s+(?:type\s+)?\*\s+(?:as\s+[\w$]+\s+)?from\s*['"]([^'"]+)['"]/gm;
const STATIC_IMPORT = /^\s*import\s+(?:type\s+)?([^'"]*?)\s*from\s*['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** `a`, `type b`, `c as d` → [name there, name here]. */
function listElements(list: string): Array<[string, string]> {
  return list
    .split(',')
    .map((el) => el.trim().replace(/^type\s+/, ''))
    .filter((el) => el !== '')
    .map((el) => {
      const [there = '', here = there] = el.split(/\s+as\s+/);
      return [there.trim(), here.trim()] as [string, string];
    })
    .filter(([there, here]) => NAME.test(there) && NAME.test(here));
}

/** Reads one file (comments removed): what it exports, and what it imports from which files. */
function readFile(root: string, path: string): { exports: FileExports; uses: Use[]; text: string } {
  // Comments that start a line or follow a space: not `*/*` in a header value, not `http://`.
  const text = readFileSync(path, 'utf8')
    .replace(/^\s*\/\*[\s\S]*?\*\//gm, '')
    .replace(/(^|\s)\/\/.*$/gm, '$1');
  const exports: FileExports = { local: new Set(), reexports: new Map(), stars: [] };
  const uses: Use[] = [];
  const target = (spec: string) => resolveSpecifier(root, path, spec);

  for (const m of text.matchAll(LOCAL_EXPORT)) exports.local.add(m[1] as string);
  for (const m of text.matchAll(EXPORT_LIST)) {
    const from = m[2] === undefined ? undefined : target(m[2]);
    if (m[2] !== undefined && !from) continue;
    for (const [there, here] of listElements(m[1] as string)) {
      if (from) exports.reexports.set(here, [from, there]);
      else exports.local.add(here); // `export { x }` of a local
    }
  }
  for (const m of text.matchAll(EXPORT_STAR)) {
    const from = target(m[1] as string);
    if (!from) continue;
    if (/\bas\s/.test(m[0])) uses.push({ file: from, name: '*' });
    else exports.stars.push(from);
  }
  for (const m of text.matchAll(STATIC_IMPORT)) {
    const file = target(m[2] as string);
    if (!file) continue;
    const clause = m[1] as string;
    if (/\*\s*as\s/.test(clause)) uses.push({ file, name: '*' });
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces) for (const [there] of listElements(braces[1] as string)) uses.push({ file, name: there });
    if (/^[A-Za-z_$][\w$]*\s*(,|$)/.test(clause.replace(/^type\s+/, '')))
      uses.push({ file, name: 'default' });
  }
  // Dynamic imports (the commands; bench/ and scripts/ load dist/ this way): every export.
  for (const m of text.matchAll(DYNAMIC_IMPORT)) {
    const file = target(m[1] as string);
    if (file) uses.push({ file, name: '*' });
  }
  return { exports, uses, text };
}

/** Times `name` appears in `text` as an identifier (not a property: `a.name`; a spread `...name` counts). */
function occurrences(text: string, name: string): number {
  const escaped = name.replace(/\$/g, '\\$');
  return (text.replace(/\.\.\./g, '   ').match(new RegExp(`(?<![\\w$.])${escaped}(?![\\w$])`, 'g')) ?? [])
    .length;
}

/**
 * Every `file#name` of src/ (tests excluded) that is exported, imported nowhere and not used
 * in its own file either: dead code, sorted. (An export used in its own file only, such as a
 * type in the signature of an exported function, is left alone.)
 */
export function unusedExports(root: string): string[] {
  const src = join(root, 'src');
  const files = [
    ...walk(src, isSource),
    ...walk(join(root, 'test'), isSource),
    ...walk(join(root, 'bench'), isSource),
    ...walk(join(root, 'scripts'), isSource),
  ];
  const read = new Map(files.map((f) => [f, readFile(root, f)]));
  const used = new Set<string>();

  const mark = (file: string, name: string, seen: Set<string>): void => {
    const key = `${file}#${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    const r = read.get(file);
    if (!r) return;
    if (name === '*') {
      for (const n of r.exports.local) used.add(`${file}#${n}`);
      for (const n of r.exports.reexports.keys()) mark(file, n, seen);
      for (const star of r.exports.stars) mark(star, '*', seen);
      return;
    }
    if (r.exports.local.has(name)) used.add(key);
    const re = r.exports.reexports.get(name);
    if (re) mark(re[0], re[1], seen);
    for (const star of r.exports.stars) mark(star, name, seen);
  };

  for (const [file, r] of read) for (const u of r.uses) if (u.file !== file) mark(u.file, u.name, new Set());
  mark(join(src, 'index.ts'), '*', new Set());

  const unused: string[] = [];
  for (const [file, r] of read) {
    if (!file.startsWith(src + sep) || /\.test\.ts$/.test(file)) continue;
    for (const name of r.exports.local) {
      if (!used.has(`${file}#${name}`) && occurrences(r.text, name) <= 1)
        unused.push(`${relative(root, file).split(sep).join('/')}#${name}`);
    }
  }
  return unused.sort();
}
