/**
 * The reading: the documents' rules of thumb stated as hypotheses for a configuration, from
 * its significant changes against the baseline only (a change the runs cannot tell from
 * noise supports no rule), joined with what the diagnosis of the runs found.
 *
 * - TTFT P99 down with TPOT flat: the bottleneck was prefill.
 * - TTFT P99 up with TPOT flat: prefill got less room per step.
 * - TPOT P99 up: decode is being dragged; look at --gpu-memory-utilization or the block size.
 * - TPOT P99 down: decode steps got lighter.
 * - preemptions, queue depth or KV usage up: KV/queue pressure; down: relief; KV fragmentation
 *   up on its own: more of the allocated blocks are empty.
 * - prefix-cache hit rate up: a shared prefix is computed once.
 *
 * Pure.
 *
 * @module
 */

import { describeChange } from './format.js';
import { matrixMetric, PRESSURE_SIGNAL_IDS } from './metrics.js';
import type { AcrossVerdict, FindingTally, Hypothesis, MatrixCell } from './types.js';

export interface ReadingInput {
  cells: Record<string, MatrixCell>;
  /** Diagnosis findings of this configuration's runs. */
  findings: readonly FindingTally[];
  /** Diagnosis findings of the baseline's runs. */
  baselineFindings: readonly FindingTally[];
}

function verdictOf(cells: Record<string, MatrixCell>, id: string): AcrossVerdict | undefined {
  return cells[id]?.vsBaseline?.verdict;
}

function evidence(cells: Record<string, MatrixCell>, ids: readonly string[]): string[] {
  return ids.flatMap((id) => {
    const cell = cells[id];
    return cell ? [describeChange(matrixMetric(id), cell)] : [];
  });
}

function seen(tallies: readonly FindingTally[], kinds: readonly string[], whose: string): string | undefined {
  const hits = tallies.filter((t) => kinds.includes(t.kind));
  if (hits.length === 0) return undefined;
  return hits.map((t) => `${whose}: ${t.title} in ${t.runs} of ${t.of} runs`).join('; ');
}

/** The hypotheses a configuration's significant changes support, in the order of the rules above. */
export function readConfiguration(input: ReadingInput): Hypothesis[] {
  const { cells, findings, baselineFindings } = input;
  const ttft = verdictOf(cells, 'ttft_p99');
  const tpot = verdictOf(cells, 'tpot_p99');
  const flat = (v: AcrossVerdict | undefined) => v === 'no significant change';
  const out: Hypothesis[] = [];
  const add = (h: Hypothesis, diagnosis: string | undefined) => {
    if (diagnosis) h.diagnosis = diagnosis;
    out.push(h);
  };
  if (ttft === 'better' && flat(tpot)) {
    add(
      {
        kind: 'prefill-bound',
        text: 'TTFT P99 down with TPOT flat: the bottleneck was prefill',
        evidence: evidence(cells, ['ttft_p99']),
      },
      seen(baselineFindings, ['prefill-bound'], 'baseline'),
    );
  }
  if (ttft === 'worse' && flat(tpot)) {
    add(
      {
        kind: 'prefill-starved',
        text: 'TTFT P99 up with TPOT flat: prefill got less room per step; look at --max-num-batched-tokens or chunked prefill',
        evidence: evidence(cells, ['ttft_p99']),
      },
      seen(findings, ['prefill-bound'], 'this configuration'),
    );
  }
  if (tpot === 'worse') {
    add(
      {
        kind: 'decode-dragged',
        text: 'TPOT P99 up: decode is being dragged; look at --gpu-memory-utilization or the block size',
        evidence: evidence(cells, ['tpot_p99']),
      },
      seen(findings, ['decode-bound'], 'this configuration'),
    );
  }
  if (tpot === 'better') {
    add(
      {
        kind: 'decode-relieved',
        text: 'TPOT P99 down: decode steps got lighter (fewer sequences or less prefill per step)',
        evidence: evidence(cells, ['tpot_p99']),
      },
      seen(baselineFindings, ['decode-bound'], 'baseline'),
    );
  }
  // Pressure is preemptions, queue depth and KV usage; fragmentation joins their evidence, or
  // stands alone (more of the allocated blocks empty) when none of them moved.
  const signals = (v: AcrossVerdict) => PRESSURE_SIGNAL_IDS.filter((id) => verdictOf(cells, id) === v);
  const fragmentation = verdictOf(cells, 'kv_fragmentation');
  const up = signals('worse');
  const down = signals('better');
  if (up.length > 0) {
    add(
      {
        kind: 'kv-pressure',
        text: 'KV/queue pressure up: look at --gpu-memory-utilization, --max-num-seqs or the block size',
        evidence: evidence(cells, fragmentation === 'worse' ? [...up, 'kv_fragmentation'] : up),
      },
      seen(findings, ['kv-pressure', 'queueing'], 'this configuration'),
    );
  } else if (down.length > 0 || fragmentation === 'better') {
    add(
      {
        kind: 'kv-relief',
        text: 'KV/queue pressure down: fewer preemptions, a shorter queue or a less full KV cache',
        evidence: evidence(cells, fragmentation === 'better' ? [...down, 'kv_fragmentation'] : down),
      },
      seen(baselineFindings, ['kv-pressure', 'queueing'], 'baseline'),
    );
  }
  if (fragmentation === 'worse' && up.length === 0) {
    out.push({
      kind: 'kv-fragmentation',
      text: 'KV fragmentation up: more of the allocated blocks are empty (partly filled blocks); look at the block size',
      evidence: evidence(cells, ['kv_fragmentation']),
    });
  }
  if (verdictOf(cells, 'prefix_cache_hit_rate') === 'better') {
    out.push({
      kind: 'prefix-reuse',
      text: 'prefix-cache hit rate up: a shared prefix is computed once and reused',
      evidence: evidence(cells, ['prefix_cache_hit_rate']),
    });
  }
  return out;
}
