/**
 * The one number format of every report: terminal, Markdown and HTML. Fixed rules, so a
 * number always prints the same way: in table cells milliseconds and rates with two decimals,
 * counts as integers; in prose and on the HTML page (headlines, facts, chart notes) about three
 * significant digits; ratios everywhere as percentages with one decimal and a space ("97.5 %").
 * Also the plain-text table layout of the terminal and Markdown renderers.
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

/** A 0..1 ratio as a percentage with one decimal, e.g. "97.5 %"; "–" when there is none. */
export function fmtPct(ratio: number | undefined): string {
  if (ratio === undefined || !Number.isFinite(ratio)) return '–';
  return `${(ratio * 100).toFixed(1)} %`;
}

/** A number with about three significant digits: 0.012, 1.23, 12.3, 1,234; "–" when there is none. */
export function fmtShort(v: number | undefined): string {
  if (v === undefined || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (Number.isInteger(v) || a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

/** Milliseconds in three significant digits with the unit: "12.3 ms", "1,234 ms". */
export function fmtShortMs(v: number | undefined): string {
  return v === undefined || !Number.isFinite(v) ? '–' : `${fmtShort(v)} ms`;
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
