/**
 * RFC 4180 CSV fields and lines, the one encoding of every CSV goodput writes (report,
 * compare, history): fields holding a comma, a double quote, CR or LF are quoted, quotes
 * doubled; lines end with CRLF.
 *
 * @module
 */

export type CsvValue = string | number | boolean | undefined | null;

/** One field: empty for a missing value or a non-finite number; quoted when it must be. */
export function csvField(value: CsvValue): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line, CRLF-terminated. */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
