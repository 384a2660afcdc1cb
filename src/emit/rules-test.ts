/**
 * The `promtool test rules` file of emitted alerts, at the alerts' cadence. Each case is a
 * schedule of probe rounds as watch runs them (round k ends near k × every, moved by up to
 * ±jitter × every, taking the worst case either way) sampled as Prometheus scrapes the
 * exporter's gauges (every / 12), and says when the alert must and must not fire:
 *
 * - fires: N bad rounds (N = the ADR's duration in rounds), the first as late and the good one
 *   after them as early as jitter allows: not firing before the N-th bad round is in, firing
 *   before the good round is, and resolved after that one good round;
 * - one round short: N − 1 bad rounds, the first early and the good one late: never firing;
 * - outage (latency alerts): N rounds with no successful request fire it like bad values;
 * - stale: rounds stop (exporter alive, or gone): firing once no valid round came for
 *   STALE_ROUNDS intervals, not before;
 * - absent: Prometheus starts with no round series: not firing during the start-up grace
 *   (STALE_ROUNDS intervals), firing after it; a watch whose first round comes within the grace
 *   never fires it.
 *
 * A rules file whose `for:` is shortened fires in "one round short" and before the N-th round
 * of "fires", so the test fails.
 *
 * @module
 */

import { stringify } from 'yaml';
import type { AdrFrontMatter } from '../adr/index.js';
import { type Threshold, type ThresholdOp, thresholdHolds } from '../gate/index.js';
import { LAST_VALID_ROUND_SERIES, metric, ROUND_METRIC_SERIES } from '../metrics/index.js';
import { alertForMs, type Cadence, promDuration } from './cadence.js';
import { above, type EmittedRules, type StaleAlert, type ThresholdAlert } from './rules.js';

/** One round: when it ends (ms from the test's start) and what it reports. */
interface Round {
  at: number;
  value: number | 'outage';
}

/** The scrape and evaluation interval of the tests: every / 12 (3 of them fit the 0.3 × every margin). */
export function testInterval(c: Cadence): number {
  return Math.max(1, Math.floor(c.everyMs / 12));
}

/** A value on the bad side of `op limit`, and one on the good side, in the metric's unit. */
export function sides(op: ThresholdOp, limit: number): { bad: number; good: number } {
  const scale = Math.max(Math.abs(limit), 1);
  const bad = above(op) ? limit + scale : limit - scale / 2;
  const good = above(op) ? limit - scale / 2 : limit + scale;
  const t = { op, limit } as Threshold;
  if (!thresholdHolds(bad, t) || thresholdHolds(good, t)) throw new Error(`no sides for ${op} ${limit}`);
  return { bad, good };
}

/** Round k's end time with jitter shift u ∈ [−1, 1]. */
const tick = (k: number, u: number, c: Cadence) => Math.round(k * c.everyMs + u * c.jitter * c.everyMs);

/** The time at which a round ending at `at` is first seen by a scrape on the grid. */
const seen = (at: number, s: number) => Math.ceil(at / s) * s;

/** Scrape values (promtool notation) of a gauge set by rounds, from 0 to `end`. */
function samples(rounds: Round[], s: number, end: number, pick: (r: Round) => string): string {
  const out: string[] = [];
  let last: string | undefined;
  for (let t = 0; t <= end; t += s) {
    let current: Round | undefined;
    for (const r of rounds) if (seen(r.at, s) <= t) current = r;
    const v = current ? pick(current) : '_';
    // A series the exporter removed gets a stale marker once, then is missing.
    out.push(v === '_' && last !== undefined && last !== '_' && last !== 'stale' ? 'stale' : v);
    last = out[out.length - 1];
  }
  return compress(out);
}

/** Runs of equal values as promtool's `a+0xN` (N + 1 values). */
function compress(values: string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[i]) j++;
    const n = j - i;
    const v = values[i]!;
    if (n >= 2 && v !== 'stale' && v !== '_') parts.push(`${v}+0x${n}`);
    else if (n >= 2 && v === '_') parts.push(`_x${n + 1}`);
    else parts.push(...values.slice(i, j + 1));
    i = j + 1;
  }
  return parts.join(' ');
}

/**
 * One scenario: its rounds, the times at which it is checked, and when its alert must be
 * firing: from `firingFrom` (inclusive) until `firingUntil` (exclusive); never without them.
 * Scenarios of one alert share a test group (one target each): every check time of the group
 * lists the scenarios firing then.
 */
interface Case {
  name: string;
  rounds: Round[];
  checks: number[];
  firingFrom?: number;
  firingUntil?: number;
}

const firingAt = (cs: Case, t: number) =>
  cs.firingFrom !== undefined && t >= cs.firingFrom && (cs.firingUntil === undefined || t < cs.firingUntil);

/** The first grid point at or after t. */
const grid = (t: number, s: number) => Math.ceil(t / s) * s;

/** The cases of a threshold alert (see the module comment). */
function thresholdCases(a: ThresholdAlert, c: Cadence): Case[] {
  const s = testInterval(c);
  const { bad, good } = sides(a.op, a.limit);
  const n = a.rounds;
  const forMs = alertForMs(n, c);
  const cases: Case[] = [];
  const lead = () => [1, 2].map((k) => ({ at: tick(k, 0, c), value: good }));
  const badRounds = (count: number, firstU: number, value: Round['value']): Round[] =>
    Array.from({ length: count }, (_, i) => ({
      at: tick(3 + i, i === 0 ? firstU : i % 2 === 1 ? -1 : 1, c),
      value,
    }));
  const run = (name: string, value: Round['value']) => {
    const bads = badRounds(n, 1, value);
    const recovery = { at: tick(3 + n, -1, c), value: good };
    const nth = seen(bads[n - 1]!.at, s);
    const back = seen(recovery.at, s);
    cases.push({
      name,
      rounds: [...lead(), ...bads, recovery, { at: tick(4 + n, 0, c), value: good }],
      // not before the N-th bad round is in; firing before the good round is; resolved after it
      checks: [nth - s, back - s, back + s],
      firingFrom: grid(seen(bads[0]!.at, s) + forMs, s),
      firingUntil: back,
    });
  };
  run('fires', bad);
  if (a.metric.latency) run('outage', 'outage');
  if (n >= 2) {
    const bads = badRounds(n - 1, -1, bad);
    const late = { at: tick(3 + n - 1, 1, c), value: good };
    const back = seen(late.at, s);
    cases.push({
      name: 'one-round-short',
      rounds: [...lead(), ...bads, late, { at: tick(3 + n, 0, c), value: good }],
      checks: [back - s, back + s],
    });
  }
  return cases;
}

function renderGroup(
  a: ThresholdAlert | StaleAlert,
  cases: Case[],
  series: Array<{ series: string; values: string }>,
  c: Cadence,
  adrId: string,
) {
  const times = [...new Set(cases.flatMap((cs) => cs.checks))].sort((x, y) => x - y);
  return {
    interval: promDuration(testInterval(c)),
    input_series: series,
    alert_rule_test: times.map((t) => ({
      eval_time: promDuration(t),
      alertname: a.alert,
      exp_alerts: cases
        .filter((cs) => firingAt(cs, t))
        .map((cs) => ({
          exp_labels: { severity: a.severity, adr: adrId, target: cs.name, model: 'm' },
          exp_annotations: { summary: `${cs.name}: ${a.summary}`, adr: adrId },
        })),
    })),
  };
}

function thresholdTests(a: ThresholdAlert, c: Cadence, adrId: string) {
  const s = testInterval(c);
  const cases = thresholdCases(a, c);
  const end = Math.max(...cases.map((cs) => seen(cs.rounds[cs.rounds.length - 1]!.at, s))) + 2 * s;
  const series = cases.flatMap((cs) => {
    const labels = (id: string) => `{target="${cs.name}",model="m",metric="${id}"}`;
    const out = [
      {
        series: `${ROUND_METRIC_SERIES}${labels(a.metric.id)}`,
        values: samples(cs.rounds, s, end, (r) => (r.value === 'outage' ? '_' : String(r.value))),
      },
    ];
    if (a.metric.latency)
      out.push({
        series: `${ROUND_METRIC_SERIES}${labels(metric('completed').id)}`,
        values: samples(cs.rounds, s, end, (r) => (r.value === 'outage' ? '0' : '10')),
      });
    return out;
  });
  return renderGroup(a, cases, series, c, adrId);
}

function staleTests(a: StaleAlert, c: Cadence, adrId: string) {
  const s = testInterval(c);
  const rounds: Round[] = [1, 2, 3, 4].map((k) => ({ at: tick(k, k % 2 === 0 ? 1 : -1, c), value: 0 }));
  const last = rounds[rounds.length - 1]!.at;
  const limit = last + a.staleAfterMs;
  const from = (Math.floor(limit / s) + 1) * s;
  // The longest wait between two rounds is not staleness; just past 3 intervals is.
  const checks = [seen(last, s) - s, Math.floor(limit / s) * s, from + s];
  const end = from + 2 * s;
  const ts = (r: Round) => (r.value === 'outage' ? '_' : String(r.at / 1000));
  // The exporter disappears a few scrapes after the last round: a stale marker, then nothing.
  const gone = [...rounds, { at: seen(last, s) + 3 * s, value: 'outage' as const }];
  const cases: Case[] = [
    { name: 'stale', rounds, checks, firingFrom: from },
    { name: 'exporter-gone', rounds: gone, checks, firingFrom: from },
  ];
  const series = cases.map((cs) => ({
    series: `${LAST_VALID_ROUND_SERIES}{target="${cs.name}",model="m"}`,
    values: samples(cs.rounds, s, end, ts),
  }));
  return renderGroup(a, cases, series, c, adrId);
}

/** The absent alert in two groups (absence is of every series at once, so each case has its own inputs). */
function absentTests(a: StaleAlert, c: Cadence, adrId: string) {
  const s = testInterval(c);
  const grace = a.staleAfterMs;
  const before = Math.floor(grace / s) * s - s;
  const after = (Math.floor(grace / s) + 2) * s;
  const expected = [
    { exp_labels: { severity: a.severity, adr: adrId }, exp_annotations: { summary: a.summary, adr: adrId } },
  ];
  const never = {
    interval: promDuration(s),
    input_series: [],
    alert_rule_test: [
      { eval_time: promDuration(before), alertname: a.alert, exp_alerts: [] },
      { eval_time: promDuration(after), alertname: a.alert, exp_alerts: expected },
    ],
  };
  // The first round as late as jitter allows: still within the grace.
  const rounds: Round[] = [1, 2, 3, 4].map((k) => ({ at: tick(k, 1, c), value: 0 }));
  const end = after + 2 * s;
  const started = {
    interval: promDuration(s),
    input_series: [
      {
        series: `${LAST_VALID_ROUND_SERIES}{target="started",model="m"}`,
        values: samples(rounds, s, end, (r) => String(r.at / 1000)),
      },
    ],
    alert_rule_test: [before, after].map((t) => ({
      eval_time: promDuration(t),
      alertname: a.alert,
      exp_alerts: [],
    })),
  };
  return [never, started];
}

/** The `promtool test rules` file for emitted rules (see the module comment). */
export function renderRulesTest(rulesFile: string, rules: EmittedRules, fm: AdrFrontMatter): string {
  const c = rules.cadence;
  const tests = rules.alerts.flatMap((a): unknown[] =>
    a.kind === 'threshold'
      ? [thresholdTests(a, c, fm.id)]
      : a.variant === 'absent'
        ? absentTests(a, c, fm.id)
        : [staleTests(a, c, fm.id)],
  );
  const doc = { rule_files: [rulesFile], evaluation_interval: promDuration(testInterval(c)), tests };
  return `# Generated by goodput emit prometheus-rules from ${fm.id} for --every ${promDuration(c.everyMs)} --jitter ${c.jitter}: run with promtool test rules\n${stringify(doc, { lineWidth: 0 })}`;
}
