/**
 * Duration text for flags: "500ms", "10s", "1.5m", "2h", "30d" or a bare number of
 * milliseconds. Returns undefined when the text is not a duration, so that the caller can
 * name the flag in its error.
 *
 * @module
 */

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Milliseconds for a duration text, or undefined when it is not one (negative, empty, unknown unit). */
export function parseDurationMs(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)?\s*$/i.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]);
  const unit = (m[2] ?? 'ms').toLowerCase();
  const factor = UNIT_MS[unit];
  if (factor === undefined || !Number.isFinite(value)) return undefined;
  return value * factor;
}
