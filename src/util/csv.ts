/**
 * RFC 4180 CSV fields and lines, the one encoding of every CSV goodput writes (report,
 * compare, history): fields holding a comma, a double quote, CR or LF are quoted, quotes
 * doubled; lines end with CRLF. A text field a spreadsheet would run as a formula (it starts
 * with `=`, `+`, `-`, `@`, a tab or CR: a model id or finish reason from a server, say) is
 * prefixed with a `'` (OWASP's advice), so it opens as the text it is; numbers, and text that
 * is a plain number, are left as they are.
 *
 * @module
 */

export type CsvValue = string | number | boolean | undefined | null;

/** What a spreadsheet reads as the start of a formula (or of a DDE payload). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A signed decimal number written as text ("-3.5", "+2e-3"): no formula, kept. */
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** One field: empty for a missing value or a non-finite number; quoted when it must be. */
export function csvField(value: CsvValue): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line, CRLF-terminated. */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
