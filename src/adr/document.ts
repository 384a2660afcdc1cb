/**
 * ADR files: YAML front matter between `---` lines, then the Markdown body. Parsing
 * validates the front matter with zod and names the field at fault.
 *
 * @module
 */

import { stringify as stringifyYaml } from 'yaml';
import type { z } from 'zod';
import { GoodputError } from '../errors.js';
import { didYouMean, parseYamlBounded } from '../util/index.js';
import { type AdrFrontMatter, AdrFrontMatterSchema } from './schema.js';

export interface AdrDocument {
  /** Where it was read from (for messages), when known. */
  path?: string;
  frontMatter: AdrFrontMatter;
  body: string;
}

const FENCE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function adrError(where: string, problem: string, hint: string): GoodputError {
  return new GoodputError('E_ADR', `${where}: ${problem}`, hint);
}

/** "gate.ttft_p99_ms" from a zod issue path. */
function issuePath(path: readonly PropertyKey[]): string {
  return (
    path
      .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
      .join('.')
      .replaceAll('.[', '[') || '(root)'
  );
}

interface SchemaNode {
  def: { type: string; shape?: Record<string, SchemaNode>; innerType?: SchemaNode; element?: SchemaNode };
}

/** The keys an object of the schema accepts at a path (for "did you mean"), or [] when not an object. */
function knownKeysAt(schema: SchemaNode, path: readonly PropertyKey[]): string[] {
  let node: SchemaNode | undefined = schema;
  const unwrap = () => {
    while (node && (node.def.type === 'optional' || node.def.type === 'nullable') && node.def.innerType)
      node = node.def.innerType;
  };
  for (const step of path) {
    unwrap();
    if (!node) return [];
    if (typeof step === 'number') node = node.def.element;
    else node = node.def.shape?.[String(step)];
  }
  unwrap();
  return node?.def.shape ? Object.keys(node.def.shape) : [];
}

/** One line per zod issue; an unknown key names the closest known one. */
function issueLines(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((i) => {
    if (i.code !== 'unrecognized_keys') return [`${issuePath(i.path)}: ${i.message}`];
    const known = knownKeysAt(AdrFrontMatterSchema as unknown as SchemaNode, i.path);
    return i.keys.map((key) => {
      const suggestion = didYouMean(key, known);
      const list = known.length > 10 ? `${known.slice(0, 10).join(', ')}, …` : known.join(', ');
      return `${issuePath([...i.path, key])}: unknown field${suggestion || (list ? ` (known: ${list})` : '')}`;
    });
  });
}

/**
 * Parses an ADR's text. Throws E_ADR (exit 5) naming the file and, for schema errors, each
 * field path with what was expected.
 */
export function parseAdr(text: string, path?: string): AdrDocument {
  const where = path ?? 'ADR';
  const m = FENCE.exec(text);
  if (!m) {
    throw adrError(
      where,
      'no YAML front matter',
      'start the file with a --- line, the YAML fields, and another --- line',
    );
  }
  const parsed = parseYamlBounded(m[1] as string);
  if (!parsed.ok) {
    throw adrError(
      where,
      `front matter is not valid YAML: ${parsed.problem}`,
      parsed.kind === 'syntax'
        ? 'fix the YAML syntax'
        : 'keep the front matter to plain fields (no alias bombs)',
    );
  }
  if (parsed.documents.length !== 1) {
    throw adrError(
      where,
      'front matter holds several YAML documents',
      'keep one document between the --- lines',
    );
  }
  const raw = parsed.documents[0];
  // YAML turns an unquoted 2025-01-02 into a string with the default schema; keep dates as written.
  const result = AdrFrontMatterSchema.safeParse(raw);
  if (!result.success) {
    const problems = issueLines(result.error.issues);
    throw adrError(
      where,
      `invalid front matter:\n  ${problems.join('\n  ')}`,
      'fix the named fields (see the ADR format in docs/adr/README.md)',
    );
  }
  // serializeAdr leaves one blank line after the front matter; it is not part of the body.
  const doc: AdrDocument = { frontMatter: result.data, body: text.slice(m[0].length).replace(/^\r?\n/, '') };
  if (path !== undefined) doc.path = path;
  return doc;
}

/** Serialises front matter and body back into an ADR file. */
export function serializeAdr(frontMatter: AdrFrontMatter, body: string): string {
  const yaml = stringifyYaml(frontMatter, { lineWidth: 0 });
  return `---\n${yaml}---\n\n${body.replace(/^\n+/, '')}`;
}
