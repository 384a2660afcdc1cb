/**
 * A plain deltas table of every run against the first: the fallback comparison when the
 * statistical `compare` module is not available (pure).
 *
 * @module
 */

import type { RunSummary } from '../../types.js';
import { fmtPct } from '../format.js';
import { headlines } from './facts.js';
import type { ComparisonView } from './model.js';

/** Relative change of `value` against `base`, or undefined when it is not defined. */
export function relativeDelta(base: number | undefined, value: number | undefined): number | undefined {
  if (base === undefined || value === undefined || !Number.isFinite(base) || !Number.isFinite(value)) {
    return undefined;
  }
  if (base === 0) return value === 0 ? 0 : undefined;
  return (value - base) / Math.abs(base);
}

/** Changes smaller than this are shown as neutral (noise). */
export const NEUTRAL_BAND = 0.02;

/**
 * Headline numbers of every run side by side, each candidate with its change against the
 * baseline (the first run), coloured by whether the change is better or worse.
 */
export function deltaComparison(runs: Array<{ label: string; summary: RunSummary }>): ComparisonView {
  const [baseline, ...candidates] = runs;
  if (!baseline) throw new Error('deltaComparison needs at least one run');
  const baseRows = headlines(baseline.summary);
  const candRows = candidates.map((c) => headlines(c.summary));
  return {
    source: 'deltas',
    baseline: baseline.label,
    columns: [`${baseline.label} (baseline)`, ...candidates.map((c) => c.label)],
    rows: baseRows.map((h, i) => ({
      metric: h.label,
      cells: [
        { text: h.text, tone: 'neutral' as const },
        ...candRows.map((rows) => {
          const c = rows[i]!;
          const d = relativeDelta(h.value, c.value);
          if (d === undefined) return { text: c.text, tone: 'neutral' as const };
          const improved = h.better === 'lower' ? d < 0 : d > 0;
          const tone = Math.abs(d) < NEUTRAL_BAND ? 'neutral' : improved ? 'better' : 'worse';
          const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
          return {
            text: `${c.text} (${sign}${fmtPct(Math.abs(d))})`,
            tone: tone as 'better' | 'worse' | 'neutral',
          };
        }),
      ],
    })),
    note: 'Plain differences against the baseline, without confidence intervals.',
  };
}
