/**
 * ADR files: YAML front matter between `---` lines, then the Markdown body. Parsing
 * validates the front matter with zod and names the field at fault.
 *
 * @module
 */

import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { GoodputError } from '../errors.js';
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
  let raw: unknown;
  try {
    raw = parseYaml(m[1] as string);
  } catch (e) {
    throw adrError(
      where,
      `front matter is not valid YAML: ${(e as Error).message.split('\n')[0]}`,
      'fix the YAML syntax',
    );
  }
  // YAML turns an unquoted 2025-01-02 into a string with the default schema; keep dates as written.
  const result = AdrFrontMatterSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${issuePath(i.path)}: ${i.message}`);
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
