/**
 * Small text helpers shared by every module: edit distance and "did you mean".
 *
 * @module
 */

import { terminalSafe } from './terminal.js';

/** Levenshtein distance between two strings. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The closest candidate within a typo's reach (about a third of the word), or else the shortest
 * candidate that extends the input (`tpot_p99` → `tpot_p99_ms`), or undefined.
 */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = editDistance(input, c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const reach = Math.max(2, Math.floor(input.length / 3));
  if (bestDistance <= reach) return best;
  if (input.length < 3) return undefined;
  const extending = candidates.filter((c) => c.startsWith(input)).sort((a, b) => a.length - b.length);
  return extending[0];
}

/** " (did you mean X?)" for the closest candidate, or "" when none is close. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const c = closestName(input, candidates);
  return c === undefined ? '' : ` (did you mean ${c}?)`;
}

/** Ids closest to the one asked for: case differences first, then by edit distance. */
export function closestIds(wanted: string, ids: string[], max = 3): string[] {
  const lower = wanted.toLowerCase();
  const scored = ids.map((id) => {
    const l = id.toLowerCase();
    let score = editDistance(lower, l) + 1;
    if (l === lower) score = 0;
    else if (l.endsWith(`/${lower}`) || lower.endsWith(`/${l}`)) score = 0.5;
    return { id, score };
  });
  const limit = Math.max(3, Math.floor(wanted.length / 3));
  return scored
    .filter((s) => s.score <= limit)
    .sort((a, b) => a.score - b.score)
    .slice(0, max)
    .map((s) => s.id);
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Text from a server or a user, made safe for Markdown: `&`, `<` and `>` become entities (as
 * in the HTML report, no element can be opened: Markdown renderers pass raw HTML through), and
 * control characters are shown as escapes ({@link terminalSafe}: the file may be read with cat).
 */
export function markdownText(text: string): string {
  return terminalSafe(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** {@link markdownText} for a table cell: also escapes pipes and joins lines. */
export function markdownCell(text: string): string {
  return markdownText(text)
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n|\r/g, ' ');
}

/**
 * A Markdown code span holding `text` as it is, whatever it holds: fenced with one backtick
 * more than its longest run of backticks, padded when it starts or ends with one, on one line.
 * Inside a code span `<img onerror=…>` is text, not HTML; a model id with a backtick ended the
 * span and put raw HTML into the ADR.
 *
 * @example
 * markdownCode('a`b<i>'); // '``a`b<i>``'
 */
export function markdownCode(text: string): string {
  const body = oneLine(terminalSafe(text));
  if (body === '') return '` `';
  let longest = 0;
  for (const run of body.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

const LINE_BREAKERS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g;
const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

/**
 * Text made one line: line breaks (LF, CR, U+2028/9) and other control characters written as
 * `\n`, `\r`, `\uXXXX`. For text copied into a line-oriented format (a YAML or shell comment,
 * an error message) where a line break would start a line of that format.
 *
 * @example
 * oneLine('p99(ttft)<350\ngroups: []'); // 'p99(ttft)<350\\ngroups: []'
 */
export function oneLine(text: string): string {
  return text.replace(
    LINE_BREAKERS,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
