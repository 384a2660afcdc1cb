/**
 * A data table in the report's styling (trend page, per-turn section). A string; every cell is
 * escaped.
 *
 * @module
 */

import { escapeHtml as e } from '../../util/index.js';

/** A table with the report's styling; every cell is escaped. */
export function dataTable(
  head: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  numericFrom = 1,
): string {
  const cell = (c: string, i: number, tag: 'td' | 'th') =>
    `<${tag}${i >= numericFrom && tag === 'td' ? ' class="num"' : ''}>${e(c)}</${tag}>`;
  const body = rows.map((r) => `<tr>${r.map((c, i) => cell(c, i, 'td')).join('')}</tr>`).join('');
  return `<div class="scroll"><table class="data"><thead><tr>${head.map((h, i) => cell(h, i, 'th')).join('')}</tr></thead><tbody>${body}</tbody></table></div>`;
}
