/**
 * Number formatting and plain-text table layout shared by the terminal and Markdown
 * renderers. Fixed rules, so a number always prints the same way: milliseconds and rates with
 * two decimals, ratios as percentages with one, counts as integers.
 *
 * @module
 */

/** Milliseconds with two decimals, e.g. "123.46". */
export function fmtMs(ms: number): string {
  return ms.toFixed(2);
}

/** A rate or other real number with two decimals. */
export function fmtNum(v: number): string {
  return v.toFixed(2);
}

/** An integer count. */
export function fmtInt(v: number): string {
  return String(Math.round(v));
}

/** A 0..1 ratio as a percentage with one decimal, e.g. "97.5 %". */
export function fmtPct(ratio: number): string {
  return `${(ratio * 100).toFixed(1)} %`;
}

/** Prompt-token bucket bounds, e.g. "128–255" or "4096+". */
export function fmtTokenRange(min: number, max: number): string {
  return max >= Number.MAX_SAFE_INTEGER ? `${min}+` : `${min}–${max - 1}`;
}

/** Column alignment: left or right. */
export type Align = 'l' | 'r';

/**
 * Lays out a header and rows as aligned columns separated by two spaces. Returns the lines
 * (header first), without colour: callers colour whole lines or cells after padding.
 */
export function layoutColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[],
) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => ((align[i] ?? 'l') === 'r' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
