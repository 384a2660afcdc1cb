/**
 * The rollback rule: a bad condition over consecutive windows (one window = one valid round),
 * from the ADR's `rollback` block or from `--rollback`, and the pure tracker that counts the
 * streak of bad windows and applies the cooldown.
 *
 * Flag grammar: `CONDITION for N windows` or `CONDITION for DURATION`, where CONDITION is the
 * gate's threshold grammar read as the *bad* state, e.g. `p99(ttft)>500 for 5 windows`,
 * `attainment<0.9 for 10m`, `error_rate>0.05 for 3 windows`. A duration is turned into a window
 * count with the watch interval: ceil(duration / every), at least 1 (`for: 5m` with
 * `--every 1m` → 5 consecutive bad rounds).
 *
 * ADR form: `rollback: { metric: ttft_p99_ms, above: 500, for: 5m }`; metric names are the
 * catalogue's ADR names (MetricDef.adrMetric): `<latency>_<stat>_ms` for latencies, the id for
 * scalars (attainment, error_rate, goodput_ratio, …).
 *
 * A round in which every request failed (the target is down) counts as bad for a latency
 * condition: a rule that cannot see the latency must not keep quiet about an outage. An
 * invalid round (the prober was the bottleneck) neither counts nor breaks the streak.
 *
 * @module
 */

import { type AdrRollback, windowsForDuration } from '../adr/index.js';
import { parseDuration } from '../config/index.js';
import { GoodputError } from '../errors.js';
import { parseThreshold, type Threshold, thresholdHolds, thresholdValue } from '../gate/index.js';
import { metricByAdrName } from '../metrics/index.js';
import type { RunSummary } from '../types.js';

export interface RollbackRule {
  /** The condition as written (canonical for ADR rules), e.g. "p99(ttft)>500". */
  condition: string;
  threshold: Threshold;
  /** Consecutive bad windows that trigger, when given as a count. */
  windows?: number;
  /** Duration the condition must hold, when given as one (ms). */
  forMs?: number;
  /** ADR id when the rule comes from an ADR. */
  adrId?: string;
  /** The rule as the user wrote it, for messages and the store. */
  source: string;
}

const HINT = "write e.g. --rollback 'p99(ttft)>500 for 5 windows' or --rollback 'attainment<0.9 for 10m'";

/** Parses `--rollback`. Throws E_USAGE naming what is wrong. */
export function parseRollbackFlag(text: string): RollbackRule {
  const m = /^(.*?)\s+for\s+(.+)$/i.exec(text.trim());
  if (!m)
    throw new GoodputError(
      'E_USAGE',
      `--rollback '${text}': missing 'for N windows' or 'for DURATION'`,
      HINT,
    );
  const threshold = parseThreshold(m[1]!);
  const span = m[2]!.trim();
  const rule: RollbackRule = { condition: threshold.source, threshold, source: text.trim() };
  const count = /^(\d+)\s*(windows?|rounds?)$/i.exec(span);
  if (count) {
    rule.windows = Number(count[1]);
    if (rule.windows < 1)
      throw new GoodputError('E_USAGE', `--rollback '${text}': needs at least 1 window`, HINT);
  } else {
    rule.forMs = parseDuration(span, '--rollback');
  }
  return rule;
}

/** The threshold subject of an ADR rollback metric (from the catalogue), e.g. ttft_p99_ms → "p99(ttft)". */
export function adrMetricSubject(metric: string): string {
  return metricByAdrName(metric)?.threshold ?? metric;
}

/** The rule of an ADR's `rollback` block. Throws E_ADR when its metric is unknown. */
export function rollbackFromAdr(rollback: AdrRollback, adrId: string): RollbackRule {
  const op = rollback.above !== undefined ? '>' : '<';
  const limit = rollback.above ?? rollback.below!;
  const condition = `${adrMetricSubject(rollback.metric)}${op}${limit}`;
  let threshold: Threshold;
  try {
    threshold = parseThreshold(condition);
  } catch (e) {
    throw new GoodputError(
      'E_ADR',
      `${adrId}: rollback.metric '${rollback.metric}' is not a metric watch can evaluate (${(e as Error).message.split('\n')[0]})`,
      'use e.g. ttft_p99_ms, tpot_p99_ms, e2el_p99_ms, attainment or error_rate',
    );
  }
  return {
    condition,
    threshold,
    forMs: parseDuration(rollback.for, 'rollback.for'),
    adrId,
    source: `${condition} for ${rollback.for}`,
  };
}

/** Consecutive bad windows that trigger the rule, given the watch interval. */
export function windowsNeeded(rule: RollbackRule, everyMs: number): number {
  if (rule.windows !== undefined) return rule.windows;
  return windowsForDuration(rule.forMs ?? 0, everyMs);
}

/** Whether a round's summary is in the bad state, and the value read (undefined: not measured). */
export function windowIsBad(rule: RollbackRule, summary: RunSummary): { bad: boolean; value?: number } {
  const value = thresholdValue(rule.threshold, summary);
  if (value === undefined || Number.isNaN(value)) {
    // Nothing measured: an outage is bad for latency rules; for scalars, unknown is not bad.
    const outage = summary.counts.attempted > 0 && summary.counts.completed === 0;
    return { bad: rule.threshold.subject.kind === 'latency' && outage };
  }
  return { bad: thresholdHolds(value, rule.threshold), value };
}

/** What the tracker keeps between rounds (persisted in the store, so a restart resumes it). */
export interface RollbackState {
  /** Bad windows in a row so far, with their evidence. */
  streak: Array<{ round: number; startedAt: number; value?: number }>;
  /** No trigger before this time (ms epoch). */
  cooldownUntil: number;
  triggered: number;
}

export function initialRollbackState(): RollbackState {
  return { streak: [], cooldownUntil: 0, triggered: 0 };
}

export interface RollbackStep {
  state: RollbackState;
  /** This window completed the streak outside the cooldown: run the breach command now. */
  trigger: boolean;
  /** The windows that made the streak (when trigger). */
  evidence?: RollbackState['streak'];
}

/**
 * Advances the tracker by one window. Invalid windows leave it unchanged. A bad window
 * extends the streak; a good one resets it. When the streak reaches `needed` outside the
 * cooldown, it triggers, starts the cooldown and clears the streak (the next trigger needs a
 * fresh streak after the cooldown).
 */
export function stepRollback(
  state: RollbackState,
  window: { round: number; startedAt: number; valid: boolean; bad: boolean; value?: number },
  needed: number,
  cooldownMs: number,
  now: number,
): RollbackStep {
  if (!window.valid) return { state, trigger: false };
  if (!window.bad) return { state: { ...state, streak: [] }, trigger: false };
  const entry: RollbackState['streak'][number] = { round: window.round, startedAt: window.startedAt };
  if (window.value !== undefined) entry.value = window.value;
  const streak = [...state.streak, entry].slice(-needed);
  if (streak.length < needed || now < state.cooldownUntil)
    return { state: { ...state, streak }, trigger: false };
  return {
    state: { streak: [], cooldownUntil: now + cooldownMs, triggered: state.triggered + 1 },
    trigger: true,
    evidence: streak,
  };
}
