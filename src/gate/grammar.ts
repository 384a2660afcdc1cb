/**
 * The threshold grammar, parsed once into a Threshold (as k6's thresholds are):
 *
 * ```
 * threshold  := subject [selector] op number [unit]
 * subject    := stat "(" latency ")" | scalar
 * selector   := "{" "class" "=" name "}"   (a traffic class's figure: --class name=…)
 * stat       := p50 | p90 | p95 | p99 | p99.9 | p999 | mean | median | min | max | std
 * latency    := ttft | tpot | itl | itl_per_token | e2el | queue_wait | ttft_from_scheduled | e2el_from_scheduled
 * scalar     := attainment | error_rate | request_goodput | goodput_ratio | request_throughput
 *             | output_throughput | total_token_throughput | completed | failed
 *             | preemptions | kv_fragmentation | kv_usage_max | waiting_mean | prefix_cache_hit_rate
 * op         := "<" | "<=" | ">" | ">="
 * unit       := ms | s            (latencies only; default ms)
 * ```
 *
 * Examples: `p99(ttft)<350`, `p50(tpot) <= 40ms`, `mean(e2el)<5s`, `attainment>=0.95`,
 * `error_rate<0.01`, `request_goodput>2`, `output_throughput>=1000`, `goodput_ratio>=0.9`,
 * `p99(ttft){class=chat}<500`, `attainment{class=batch}>=0.9`.
 *
 * Every subject is a metric of the catalogue (src/metrics/catalogue.ts): latencies × statistics
 * and the scalars are exactly the catalogue's, and a parsed threshold carries its MetricDef.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import {
  LATENCIES,
  type LatencyStatKey,
  latencyMetricOf,
  type MetricDef,
  metricById,
  SCALAR_METRIC_NAMES,
} from '../metrics/index.js';
import type { SummaryLatencyName } from '../types.js';
import { didYouMean, oneLine } from '../util/index.js';

export type ThresholdOp = '<' | '<=' | '>' | '>=';
export type LatencyStat = LatencyStatKey;

/** Latency names as written in thresholds → the RunSummary latency they read (from the latency table). */
export const THRESHOLD_LATENCIES: Readonly<Record<string, SummaryLatencyName>> = Object.fromEntries(
  LATENCIES.map(({ text, name }) => [text, name]),
);

/** Statistic names as written → the LatencyStats field. */
export const THRESHOLD_STATS: Readonly<Record<string, LatencyStat>> = {
  p50: 'p50',
  median: 'p50',
  p90: 'p90',
  p95: 'p95',
  p99: 'p99',
  'p99.9': 'p999',
  p999: 'p999',
  mean: 'mean',
  min: 'min',
  max: 'max',
  std: 'std',
};

/** The scalar names of the grammar: the catalogue's non-latency metrics. */
export const THRESHOLD_SCALARS: readonly string[] = SCALAR_METRIC_NAMES;
export type ThresholdScalar = string;

export type ThresholdSubject =
  | { kind: 'latency'; stat: LatencyStat; statText: string; latency: SummaryLatencyName; latencyText: string }
  | { kind: 'scalar'; name: ThresholdScalar };

export interface Threshold {
  /** The text as written. */
  source: string;
  subject: ThresholdSubject;
  op: ThresholdOp;
  /** The limit, in milliseconds for latencies. */
  limit: number;
  /** The catalogue metric the subject names (its `read` gives the value). */
  metric: MetricDef;
  /** `{class=NAME}`: the figure of this traffic class (metrics' classView), not the run's. */
  class?: string;
}

const HINT =
  "write SUBJECT OP NUMBER, e.g. p99(ttft)<350, p50(tpot)<=40ms, attainment>=0.95, error_rate<0.01, or a class's: p99(ttft){class=chat}<500; " +
  `stats: p50 p90 p95 p99 p99.9 mean min max std; latencies: ${Object.keys(THRESHOLD_LATENCIES).join(' ')}; ` +
  `scalars: ${THRESHOLD_SCALARS.join(' ')}`;

function fail(source: string, position: number, problem: string): never {
  const caret = `${' '.repeat(position)}^`;
  throw new GoodputError(
    'E_THRESHOLD',
    `invalid threshold '${source}' at column ${position + 1}: ${problem}\n  ${source}\n  ${caret}`,
    HINT,
  );
}

const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

/** Parses one threshold expression. Throws E_THRESHOLD naming the column and the problem. */
export function parseThreshold(source: string): Threshold {
  // One line: a line break inside a threshold passed lint and then broke every file that
  // copies its text (a YAML comment of emit prometheus-rules became YAML).
  const control = CONTROL.exec(source);
  if (control) {
    throw new GoodputError(
      'E_THRESHOLD',
      `invalid threshold "${oneLine(source)}" at column ${control.index + 1}: a line break or control character (${oneLine(control[0])})`,
      `a threshold is one line of text; ${HINT}`,
    );
  }
  let pos = 0;
  const skipSpace = () => {
    while (pos < source.length && (source[pos] === ' ' || source[pos] === '\t')) pos++;
  };
  const word = () => {
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(source.slice(pos));
    return m ? m[0] : '';
  };
  skipSpace();
  const start = pos;
  const name = word();
  if (name === '') fail(source, pos, 'expected a statistic such as p99(ttft) or a name such as attainment');
  pos += name.length;
  skipSpace();
  let subject: ThresholdSubject;
  let metric: MetricDef | undefined;
  if (source[pos] === '(') {
    const stat = THRESHOLD_STATS[name.toLowerCase()];
    if (!stat) fail(source, start, `unknown statistic '${name}'`);
    pos++;
    skipSpace();
    const latStart = pos;
    const latencyText = word();
    const latency = THRESHOLD_LATENCIES[latencyText.toLowerCase()];
    if (!latency)
      fail(source, latStart, latencyText ? `unknown latency '${latencyText}'` : 'expected a latency name');
    pos += latencyText.length;
    skipSpace();
    if (source[pos] !== ')') fail(source, pos, "expected ')'");
    pos++;
    subject = {
      kind: 'latency',
      stat,
      statText: name.toLowerCase(),
      latency,
      latencyText: latencyText.toLowerCase(),
    };
    metric = latencyMetricOf(subject.latencyText, stat);
  } else {
    const scalar = THRESHOLD_SCALARS.find((s) => s === name.toLowerCase());
    if (!scalar) {
      const problem = THRESHOLD_STATS[name.toLowerCase()]
        ? `'${name}' needs a latency in parentheses, e.g. ${name}(ttft)`
        : `unknown name '${name}'${didYouMean(name.toLowerCase(), THRESHOLD_SCALARS)}`;
      fail(source, start, problem);
    }
    subject = { kind: 'scalar', name: scalar };
    metric = metricById(scalar);
  }
  if (!metric) fail(source, start, `'${name}' is not in the metric catalogue`);
  skipSpace();
  const cls = source[pos] === '{' ? classSelector() : undefined;
  skipSpace();
  const opMatch = /^(<=|>=|<|>)/.exec(source.slice(pos));
  if (!opMatch) fail(source, pos, 'expected a comparison: <, <=, > or >=');
  const op = opMatch[1] as ThresholdOp;
  pos += op.length;
  skipSpace();
  const numMatch = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(source.slice(pos));
  if (!numMatch) fail(source, pos, 'expected a number');
  let limit = Number(numMatch[0]);
  pos += numMatch[0].length;
  skipSpace();
  const unit = word();
  if (unit === 'ms' || unit === 's') {
    if (subject.kind !== 'latency') fail(source, pos, `a unit ('${unit}') only applies to latencies`);
    if (unit === 's') limit *= 1000;
    pos += unit.length;
    skipSpace();
  } else if (unit !== '' && subject.kind === 'latency') {
    fail(source, pos, `unknown unit '${unit}' (use ms or s)`);
  }
  if (pos < source.length) fail(source, pos, `unexpected '${source.slice(pos)}'`);
  return { source: source.trim(), subject, op, limit, metric, ...(cls !== undefined ? { class: cls } : {}) };

  /** `{class=NAME}` at pos: the class's name. */
  function classSelector(): string {
    pos++;
    skipSpace();
    const keyStart = pos;
    const key = word();
    if (key !== 'class')
      fail(source, keyStart, `expected class=NAME in the selector${key ? `, not '${key}'` : ''}`);
    pos += key.length;
    skipSpace();
    if (source[pos] !== '=') fail(source, pos, "expected '=' after class");
    pos++;
    skipSpace();
    const nameMatch = /^[A-Za-z0-9_.-]{1,64}/.exec(source.slice(pos));
    if (!nameMatch) fail(source, pos, 'expected a class name');
    pos += nameMatch[0].length;
    skipSpace();
    if (source[pos] !== '}') fail(source, pos, "expected '}'");
    pos++;
    return nameMatch[0];
  }
}

/** Parses many; the first error wins. */
export function parseThresholds(sources: readonly string[]): Threshold[] {
  return sources.map(parseThreshold);
}

/** The subject as written canonically: "p99(ttft)", "attainment", "p99(ttft){class=chat}". */
export function subjectText(t: Threshold): string {
  const subject =
    t.subject.kind === 'latency' ? `${t.subject.statText}(${t.subject.latencyText})` : t.subject.name;
  return t.class === undefined ? subject : `${subject}{class=${t.class}}`;
}

/** Canonical text: "p99(ttft) < 350 ms", "attainment >= 0.95". */
export function formatThreshold(t: Threshold): string {
  const unit = t.subject.kind === 'latency' ? ' ms' : '';
  return `${subjectText(t)} ${t.op} ${t.limit}${unit}`;
}
