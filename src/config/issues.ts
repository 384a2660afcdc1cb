/**
 * Turns zod validation issues into short lines that name the field's path, e.g.
 * `slo.ttft_ms: expected number, got string`. Values are never quoted (a config value may
 * be a key), only their JSON type.
 *
 * @module
 */

import type { z } from 'zod';

/** "slo.ttft_ms", "messages[0].role"; "(root)" for the top level. */
export function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? '(root)' : out;
}

/** JSON type name of a value: "string", "number", "array", "null", "object", "boolean", "missing". */
export function jsonType(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Levenshtein distance, for "did you mean" suggestions. */
function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The closest of `known` to `name` when it is close enough to be a likely typo. */
export function suggest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const norm = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  for (const candidate of known) {
    const a = norm(name);
    const b = norm(candidate);
    // Equal apart from case and separators, or one a prefix of the other ("ttft" for "ttft_ms").
    const d =
      a === b ? 0 : a.length >= 3 && (b.startsWith(a) || a.startsWith(b)) ? 1 : editDistance(name, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * One line per problem. `knownKeys(path)` may return the field names allowed at an object
 * path, to suggest the intended name of an unknown field.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  knownKeys?: (path: readonly PropertyKey[]) => readonly string[] | undefined,
): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const where = formatPath(issue.path);
    const input = (issue as { input?: unknown }).input;
    switch (issue.code) {
      case 'invalid_type':
        lines.push(`${where}: expected ${issue.expected}, got ${jsonType(input)}`);
        break;
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const known = knownKeys?.(issue.path);
          const guess = known ? suggest(key, known) : undefined;
          lines.push(
            `${formatPath([...issue.path, key])}: unknown field${guess ? ` (did you mean "${guess}"?)` : ''}`,
          );
        }
        break;
      case 'invalid_value':
        lines.push(`${where}: expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`);
        break;
      case 'too_small':
      case 'too_big':
        lines.push(`${where}: ${issue.message.replace(/^Too (small|big): /, '')}`);
        break;
      case 'invalid_union': {
        const nested = issue.errors.flatMap((branch) => describeIssues(branch, knownKeys));
        lines.push(nested.length > 0 ? `${where}: ${nested.join('; or ')}` : `${where}: ${issue.message}`);
        break;
      }
      default:
        lines.push(`${where}: ${issue.message}`);
    }
  }
  return lines;
}
