/**
 * An ADR from an experiment's analysis (pure): the matrix with every row, the winner (or no
 * conclusion), solidified rules from the winner's serving flags against the baseline's, gate
 * limits from the winner's across-run interval with a stated headroom, the rollback rule, and
 * the workload (and, on the embedded engine, the engine flags) to rerun.
 *
 * Gate limits, with headroom h (default 0.1): latency p99 limits = the upper bound of the
 * winner's 95 % interval across runs × (1 + h), rounded up; request goodput minimum = the lower
 * bound ÷ (1 + h); SLO attainment minimum (with an SLO) = the lower bound × (1 − h/4); with traffic
 * classes, the same TTFT p99 and attainment limits per class from the winner's class intervals
 * (`gate.thresholds`, `{class=NAME}`). With one
 * run there is no interval and the mean stands in. Rollback: TTFT p99 above 1.5 × its gate
 * limit for 5 minutes.
 *
 * No conclusion: no rules, no gate, `experiment.winner: null` — which `adr lint` refuses.
 *
 * @module
 */

import type { ConfigurationAnalysis, ExperimentAnalysis, MatrixCell } from '../experiment/analysis/index.js';
import { gateLimit } from '../gate/index.js';
import type { RunMeta, ServeParamValue } from '../types.js';
import { nextAdrId, roundDownRate, roundDownRatio, roundUpMs, slugify, workloadOf } from './build.js';
import { renderExperimentAdrBody } from './experiment-body.js';
import { mergeRules, rulesFromServingArgs } from './rules.js';
import type { AdrFrontMatter, AdrGate, AdrRollback, AdrRule, AdrStatus } from './schema.js';

/** Default headroom of an experiment ADR's gate over the winner's interval. */
export const EXPERIMENT_HEADROOM = 0.1;

export interface ExperimentAdrInput {
  analysis: ExperimentAnalysis;
  title?: string;
  date: Date;
  existing: readonly string[];
  status: AdrStatus;
  headroom?: number;
  /** The winner's run meta (else the baseline's): the workload to rerun. */
  meta: RunMeta;
  /** The winner's engine options on the embedded engine, so a gate rerun measures the same engine. */
  simEngine?: Record<string, unknown>;
  /** Explicit rules (win over the derived ones). */
  rules?: AdrRule[];
  rollback?: Partial<AdrRollback>;
  context?: string;
  /** Paths relative to the ADR folder: the experiment folder and each configuration's run folders. */
  links: { experiment: string; configurations: Record<string, string> };
}

/** The bound of a cell's interval on the side a limit guards (the mean with one run). */
function bound(cell: MatrixCell | undefined, side: 'upper' | 'lower'): number | undefined {
  if (!cell || cell.spread.n === 0 || !Number.isFinite(cell.spread.mean)) return undefined;
  const ci = cell.spread.ci;
  if (!ci) return cell.spread.mean;
  return side === 'upper' ? ci[1] : ci[0];
}

/** Gate limits from the winner's across-run intervals (see the module comment). */
export function experimentGate(winner: ConfigurationAnalysis, headroom: number, sloSet: boolean): AdrGate {
  const gate: AdrGate = { headroom };
  const ttft = bound(winner.cells.ttft_p99, 'upper');
  if (ttft !== undefined && ttft > 0) gate.ttft_p99_ms = roundUpMs(ttft * (1 + headroom));
  const tpot = bound(winner.cells.tpot_p99, 'upper');
  if (tpot !== undefined && tpot > 0) gate.tpot_p99_ms = roundUpMs(tpot * (1 + headroom));
  const goodput = bound(winner.cells.request_goodput, 'lower');
  if (goodput !== undefined && goodput > 0)
    gate.request_goodput_min = roundDownRate(goodput / (1 + headroom));
  const attainment = bound(winner.cells.attainment, 'lower');
  if (sloSet && attainment !== undefined)
    gate.attainment_min = roundDownRatio(attainment * (1 - headroom / 4));
  const perClass = classThresholds(winner, headroom);
  if (perClass.length > 0) gate.thresholds = perClass;
  return gate;
}

/**
 * Traffic classes: each class's TTFT p99 limit and, when its SLO sets anything, its attainment
 * minimum, from the winner's class intervals as the run's limits are from its own
 * (`p99(ttft){class=chat}<=…`, `attainment{class=chat}>=…`, the gate's class selector).
 */
function classThresholds(winner: ConfigurationAnalysis, headroom: number): string[] {
  return (winner.classes ?? []).flatMap((c) => {
    const out: string[] = [];
    const ttft = bound(c.cells.ttft_p99, 'upper');
    if (ttft !== undefined && ttft > 0)
      out.push(`p99(ttft){class=${c.name}}<=${roundUpMs(ttft * (1 + headroom))}`);
    const attainment = bound(c.cells.attainment, 'lower');
    if (c.sloSet && attainment !== undefined)
      out.push(`attainment{class=${c.name}}>=${roundDownRatio(attainment * (1 - headroom / 4))}`);
    return out;
  });
}

/** A configuration's flags: its serving argv or engine flags, else its params written as flags. */
export function servingArgsOf(row: ConfigurationAnalysis): string[] {
  if (row.args) return row.args;
  return Object.entries(row.params).flatMap(([k, v]: [string, ServeParamValue]) => {
    const flag = k.startsWith('-') ? k : `--${k}`;
    if (v === true) return [flag];
    if (v === false) return [`--no-${flag.replace(/^-+/, '')}`];
    return [flag, String(v)];
  });
}

/** Quotes a word for the rules' command-line tokenizer. */
function quoted(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Rules the winner's flags imply against the baseline's: what it sets differently, and what it dropped. */
export function experimentRules(winner: ConfigurationAnalysis, baseline: ConfigurationAnalysis): AdrRule[] {
  const line = (args: string[]) => args.map(quoted).join(' ');
  const why = `measured in ${winner.label} of the experiment`;
  return rulesFromServingArgs(line(servingArgsOf(winner)), line(servingArgsOf(baseline))).map((r) => ({
    ...r,
    why,
  }));
}

export interface ExperimentAdr {
  id: string;
  fileName: string;
  frontMatter: AdrFrontMatter;
  body: string;
}

/** The ADR of an experiment: front matter and body. */
export function buildExperimentAdr(input: ExperimentAdrInput): ExperimentAdr {
  const { analysis } = input;
  const id = nextAdrId(input.date, input.existing);
  const baseline = analysis.configurations.find((r) => r.baseline);
  const winner = analysis.configurations.find((r) => r.name === analysis.winner.name);
  const headroom = input.headroom ?? EXPERIMENT_HEADROOM;
  const title =
    input.title ??
    (winner
      ? `${analysis.name}: adopt ${winner.label === winner.name ? winner.name : `${winner.label} (${winner.name})`}`
      : `${analysis.name}: no conclusion`);
  const workload = workloadOf(input.meta);
  if (input.simEngine && Object.keys(input.simEngine).length > 0)
    workload.target = { ...workload.target, embedded: true, simEngine: input.simEngine };
  const link = (r: ConfigurationAnalysis | undefined) =>
    r ? (input.links.configurations[r.name] ?? '') : '';
  const frontMatter: AdrFrontMatter = {
    schemaVersion: 1,
    id,
    title,
    date: input.date.toISOString().slice(0, 10),
    status: input.status,
    workload,
    runs: {
      baseline: link(baseline),
      candidates: analysis.configurations.filter((r) => !r.baseline).map(link),
      ...(winner ? { chosen: link(winner) } : {}),
    },
    experiment: {
      path: input.links.experiment,
      name: analysis.name,
      winner: winner ? winner.name : null,
      objective: analysis.winner.metric ?? analysis.objective.metrics[0] ?? 'request_goodput',
      runsPerConfiguration: analysis.runsPerConfiguration,
    },
  };
  if (winner && baseline) {
    const sloSet = Object.values(input.meta.slo ?? {}).some((v) => v !== undefined);
    frontMatter.gate = experimentGate(winner, headroom, sloSet);
    frontMatter.rules = mergeRules(experimentRules(winner, baseline), input.rules ?? []);
    const rollback: AdrRollback = {
      metric: input.rollback?.metric ?? 'ttft_p99_ms',
      for: input.rollback?.for ?? '5m',
    };
    const ttftLimit = gateLimit(frontMatter.gate, 'ttft_p99_ms');
    const above = input.rollback?.above ?? (ttftLimit !== undefined ? roundUpMs(ttftLimit * 1.5) : undefined);
    if (above !== undefined) rollback.above = above;
    if (input.rollback?.below !== undefined) rollback.below = input.rollback.below;
    if (rollback.above !== undefined || rollback.below !== undefined) frontMatter.rollback = rollback;
  }
  const body = renderExperimentAdrBody({
    id,
    frontMatter,
    analysis,
    headroom,
    context: input.context,
    links: input.links,
  });
  return { id, fileName: `${id}-${slugify(title)}.md`, frontMatter, body };
}
