/**
 * Building a new ADR from a baseline and candidate runs (pure): its id and file name, the
 * machine-readable front matter (workload, gate with headroom, rules, rollback) and the body.
 *
 * Derived gate limits (documented in docs/adr/README.md), with headroom h (default 0.2):
 * latency p99 limits = chosen candidate's p99 × (1 + h), rounded up; request goodput minimum
 * (requests/s that met every SLO) = candidate's ÷ (1 + h), rounded down; SLO attainment
 * minimum (only when the runs had an SLO) = candidate's × (1 − h/4), rounded down to 0.01.
 * The token goodput ratio (`goodput_min`) is not derived: it is about 1 on any run without
 * cancels, so it would gate nothing. Traffic classes (`--class`): the same TTFT p99 and
 * attainment limits per class, as `gate.thresholds` with `{class=NAME}`. Rollback default: TTFT
 * p99 above 1.5 × its gate limit for 5 minutes.
 *
 * @module
 */

import type { CompareReport, MetricDelta, RunComparison, RunInput } from '../compare/index.js';
import { gateLimit } from '../gate/index.js';
import { type RunMeta, SCHEMA_VERSION } from '../types.js';
import { renderAdrBody } from './body.js';
import { mergeRules, rulesFromServingArgs, SERVING_ARGS_LABEL } from './rules.js';
import type { AdrFrontMatter, AdrGate, AdrRollback, AdrRule, AdrStatus, AdrWorkload } from './schema.js';

/** `YYYYMMDD` of a date, in UTC (so that ids do not depend on the machine's time zone). */
export function adrDateStamp(date: Date): string {
  return date.toISOString().slice(0, 10).replaceAll('-', '');
}

/** The next id for that day: one more than the highest NNN among the existing file names. */
export function nextAdrId(date: Date, existingFileNames: readonly string[]): string {
  const stamp = adrDateStamp(date);
  const prefix = `ADR-${stamp}-`;
  let highest = 0;
  for (const name of existingFileNames) {
    if (!name.startsWith(prefix)) continue;
    const n = Number.parseInt(name.slice(prefix.length, prefix.length + 3), 10);
    if (Number.isFinite(n)) highest = Math.max(highest, n);
  }
  return `${prefix}${String(highest + 1).padStart(3, '0')}`;
}

/** "Enable chunked prefill (2048)!" → "enable-chunked-prefill-2048". */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug.length <= 50) return slug || 'decision';
  const cut = slug.slice(0, 50);
  return cut.slice(0, cut.lastIndexOf('-') > 20 ? cut.lastIndexOf('-') : 50);
}

/** Key metrics whose verdicts make an experiment's overall verdict. */
export const KEY_METRICS = ['ttft_p99', 'tpot_p99', 'e2el_p99', 'request_goodput', 'error_rate'] as const;

export interface ExperimentVerdict {
  verdict: 'better' | 'worse' | 'mixed' | 'no significant change' | 'no verdict';
  better: MetricDelta[];
  worse: MetricDelta[];
  /** With 'no verdict': why no key metric could be judged (from the comparison's reasons). */
  why?: string;
}

/**
 * better when some key metric improved and none got worse; worse the other way; mixed when
 * both; no significant change when key metrics were tested and none moved; no verdict when no
 * key metric could be tested at all (a figure missing, no samples, a verdict withheld), which
 * is not the same as a test that found nothing.
 */
export function experimentVerdict(c: RunComparison): ExperimentVerdict {
  const keyDeltas = c.deltas.filter((d) => (KEY_METRICS as readonly string[]).includes(d.key));
  const better = keyDeltas.filter((d) => d.verdict === 'better');
  const worse = keyDeltas.filter((d) => d.verdict === 'worse');
  if (better.length > 0 || worse.length > 0) {
    const verdict = worse.length === 0 ? 'better' : better.length === 0 ? 'worse' : 'mixed';
    return { verdict, better, worse };
  }
  if (keyDeltas.some((d) => d.verdict === 'unchanged'))
    return { verdict: 'no significant change', better, worse };
  const reasons = [...new Set(keyDeltas.map((d) => d.why).filter((w): w is string => w !== undefined))];
  const out: ExperimentVerdict = { verdict: 'no verdict', better, worse };
  out.why = reasons.length > 0 ? reasons.join('; ') : 'no key metric could be tested';
  return out;
}

/** Index (0-based among candidates) of the best one: most key metrics better minus worse, then lowest TTFT p99. */
export function chooseCandidate(report: CompareReport, candidates: readonly RunInput[]): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  let bestTtft = Number.POSITIVE_INFINITY;
  report.comparisons.forEach((c, i) => {
    const v = experimentVerdict(c);
    const score = v.better.length - v.worse.length;
    const ttft = candidates[i]?.summary.p99_ttft_ms ?? Number.POSITIVE_INFINITY;
    if (score > bestScore || (score === bestScore && ttft < bestTtft)) {
      best = i;
      bestScore = score;
      bestTtft = ttft;
    }
  });
  return best;
}

/** A latency limit rounded up (whole ms from 10 ms, tenths below): a maximum never below the value. */
export function roundUpMs(v: number): number {
  return v >= 10 ? Math.ceil(v) : Math.ceil(v * 10) / 10;
}

/** A ratio rounded down to hundredths: a minimum never above the value. */
export function roundDownRatio(v: number): number {
  return Math.max(0, Math.floor(v * 100 + 1e-9) / 100);
}

/** A rate rounded down to 3 significant digits (0.0123, 1.23, 123): a minimum never above the value. */
export function roundDownRate(v: number): number {
  if (!(v > 0)) return 0;
  const step = 10 ** (Math.floor(Math.log10(v)) - 2);
  return Number((Math.floor(v / step + 1e-9) * step).toPrecision(3));
}

/** Gate limits from the chosen candidate's figures, with headroom h. */
export function deriveGate(meta: RunMeta, summary: RunInput['summary'], headroom: number): AdrGate {
  const gate: AdrGate = { headroom };
  if (summary.latency.ttft.count > 0) gate.ttft_p99_ms = roundUpMs(summary.latency.ttft.p99 * (1 + headroom));
  if (summary.latency.tpot.count > 0) gate.tpot_p99_ms = roundUpMs(summary.latency.tpot.p99 * (1 + headroom));
  // Latency limits allow ×(1 + h); at the same load that is ÷(1 + h) in requests per second.
  if (summary.request_goodput > 0)
    gate.request_goodput_min = roundDownRate(summary.request_goodput / (1 + headroom));
  const sloSet = Object.values(meta.slo ?? {}).some((v) => v !== undefined);
  if (sloSet) gate.attainment_min = roundDownRatio(summary.goodput.attainment * (1 - headroom / 4));
  const perClass = classThresholds(summary, headroom);
  if (perClass.length > 0) gate.thresholds = perClass;
  return gate;
}

/**
 * Traffic classes: each class's TTFT p99 limit and, when its SLO sets anything, its attainment
 * minimum, derived as the run's are (`p99(ttft){class=chat}<=…`, `attainment{class=chat}>=…`).
 */
function classThresholds(summary: RunInput['summary'], headroom: number): string[] {
  return (summary.classes ?? []).flatMap((c) => {
    const out: string[] = [];
    if (c.latency.ttft.count > 0)
      out.push(`p99(ttft){class=${c.name}}<=${roundUpMs(c.latency.ttft.p99 * (1 + headroom))}`);
    if (Object.values(c.goodput.slo).some((v) => v !== undefined))
      out.push(`attainment{class=${c.name}}>=${roundDownRatio(c.goodput.attainment * (1 - headroom / 4))}`);
    return out;
  });
}

/** The RunMeta fields needed to rerun the same load. */
export function workloadOf(meta: RunMeta): AdrWorkload {
  const w: AdrWorkload = {
    model: meta.model,
    seed: meta.seed,
    sampling: { ...meta.sampling },
    workload: { ...meta.workload },
    load: { ...meta.load },
    slo: { ...meta.slo },
  };
  const target: AdrWorkload['target'] = { embedded: meta.target.embedded };
  if (meta.target.simProfile !== undefined) target.simProfile = meta.target.simProfile;
  if (meta.target.simSpeculativeConfig !== undefined)
    target.simSpeculativeConfig = meta.target.simSpeculativeConfig;
  if (meta.target.simSchedulingPolicy !== undefined)
    target.simSchedulingPolicy = meta.target.simSchedulingPolicy;
  if (meta.target.simMaxLoras !== undefined) target.simMaxLoras = meta.target.simMaxLoras;
  w.target = target;
  return JSON.parse(JSON.stringify(w)) as AdrWorkload; // drop undefined fields: YAML writes no nulls
}

export interface NewAdrInput {
  title: string;
  date: Date;
  /** File names already in the ADR directory (for the day's number). */
  existing: readonly string[];
  status: AdrStatus;
  baseline: RunInput;
  candidates: RunInput[];
  report: CompareReport;
  /** 0-based index of the chosen candidate; default: chooseCandidate. */
  chosen?: number;
  headroom?: number;
  /** Explicit rules (win over rules derived from serving.args labels). */
  rules?: AdrRule[];
  rollback?: Partial<AdrRollback>;
  /** Free text for the Context section (the symptom in words). */
  context?: string;
  /** Run directories as links relative to the ADR directory. */
  links: { baseline: string; candidates: string[] };
}

export interface NewAdr {
  id: string;
  fileName: string;
  frontMatter: AdrFrontMatter;
  body: string;
}

/** Builds the new ADR: front matter and body. */
export function buildAdr(input: NewAdrInput): NewAdr {
  const id = nextAdrId(input.date, input.existing);
  const chosenIndex = input.chosen ?? chooseCandidate(input.report, input.candidates);
  const chosen = input.candidates[chosenIndex] ?? input.candidates[0]!;
  const headroom = input.headroom ?? 0.2;
  const gate = deriveGate(chosen.summary.meta, chosen.summary, headroom);
  const candArgs = chosen.summary.meta.labels?.[SERVING_ARGS_LABEL];
  const baseArgs = input.baseline.summary.meta.labels?.[SERVING_ARGS_LABEL];
  const derived = candArgs !== undefined ? rulesFromServingArgs(candArgs, baseArgs) : [];
  const rules = mergeRules(derived, input.rules ?? []);
  const rollback: AdrRollback = {
    metric: input.rollback?.metric ?? 'ttft_p99_ms',
    for: input.rollback?.for ?? '5m',
  };
  const ttftLimit = gateLimit(gate, 'ttft_p99_ms');
  const above = input.rollback?.above ?? (ttftLimit !== undefined ? roundUpMs(ttftLimit * 1.5) : undefined);
  if (above !== undefined) rollback.above = above;
  if (input.rollback?.below !== undefined) rollback.below = input.rollback.below;
  const frontMatter: AdrFrontMatter = {
    schemaVersion: SCHEMA_VERSION,
    id,
    title: input.title,
    date: input.date.toISOString().slice(0, 10),
    status: input.status,
    workload: workloadOf(chosen.summary.meta),
    gate,
    rules,
    runs: {
      baseline: input.links.baseline,
      candidates: input.links.candidates,
      chosen: input.links.candidates[chosenIndex] ?? input.links.candidates[0] ?? '',
    },
  };
  if (rollback.above !== undefined || rollback.below !== undefined) frontMatter.rollback = rollback;
  const body = renderAdrBody({ ...input, id, chosenIndex, frontMatter });
  return { id, fileName: `${id}-${slugify(input.title)}.md`, frontMatter, body };
}
