/**
 * Bottleneck hints from the pattern of significant changes, stated as hypotheses: a pattern
 * points at a cause, it does not prove it.
 *
 * @module
 */

import type { MetricDelta } from './compare.js';

function pct(change: number | undefined): string {
  return change === undefined ? '?' : `${Math.abs(change * 100).toFixed(1)}%`;
}

/**
 * A server figure's rise that a hint may rest on: a significant 'worse' where the row has an
 * interval (replicates), else (one figure per run, untested) a rise past `rose`.
 */
function serverRise(
  d: MetricDelta | undefined,
  rose: (a: number, b: number) => boolean,
): [number, number] | undefined {
  if (d?.baseline === undefined || d.candidate === undefined) return undefined;
  const up = d.verdict === 'untested' ? rose(d.baseline, d.candidate) : d.verdict === 'worse';
  return up ? [d.baseline, d.candidate] : undefined;
}

/**
 * Hypotheses about what the change did, from significant verdicts only (a change inside the
 * noise floor is no significant change and gives none) and the server's counters.
 */
export function hintsFor(deltas: MetricDelta[]): string[] {
  const by = new Map(deltas.map((d) => [d.key, d]));
  const verdict = (key: string) => by.get(key)?.verdict;
  const hints: string[] = [];
  const ttft = by.get('ttft_p99');
  const tpotFlat = verdict('tpot_p50') === 'unchanged' && verdict('tpot_p99') !== 'worse';
  if (ttft?.verdict === 'better' && tpotFlat) {
    hints.push(
      `Hypothesis: TTFT p99 fell ${pct(ttft.change)} while TPOT stayed flat, so the bottleneck was prefill ` +
        '(long prompts or requests queued before their first token); the change relieved it.',
    );
  }
  if (ttft?.verdict === 'worse' && tpotFlat) {
    hints.push(
      `Hypothesis: TTFT p99 rose ${pct(ttft.change)} while TPOT stayed flat: prefill or queueing got slower ` +
        '(token budget per step, chunked prefill, scheduling), not decode.',
    );
  }
  const tpot = [by.get('tpot_p50'), by.get('tpot_p99')].find((d) => d?.verdict === 'worse');
  if (tpot) {
    hints.push(
      `Hypothesis: ${tpot.label} rose ${pct(tpot.change)}, so decode suffers: batches may be too large ` +
        '(max-num-seqs, max-num-batched-tokens) or memory is under pressure.',
    );
  }
  const tpotBetter = [by.get('tpot_p50'), by.get('tpot_p99')].find((d) => d?.verdict === 'better');
  if (tpotBetter && !tpot) {
    hints.push(`Hypothesis: ${tpotBetter.label} fell ${pct(tpotBetter.change)}: decode steps got cheaper.`);
  }
  const pre = serverRise(by.get('preemptions'), (a, b) => b > a);
  if (pre) {
    const [a, b] = pre.map((v) => (Number.isInteger(v) ? String(v) : v.toFixed(1)));
    hints.push(
      `Hypothesis: preemptions rose from ${a} to ${b}: KV-cache pressure (gpu-memory-utilization, ` +
        'max-num-seqs, prompt length).',
    );
  }
  const wait = serverRise(by.get('waiting_mean'), (a, b) => b > a * 1.2 && b - a >= 0.5);
  if (wait) {
    hints.push(
      `Hypothesis: waiting requests rose from ${wait[0].toFixed(1)} to ${wait[1].toFixed(1)} on average: ` +
        'queue pressure, the engine admits fewer requests per step (KV blocks or max-num-seqs).',
    );
  }
  if (verdict('error_rate') === 'worse') {
    hints.push(
      'Hypothesis: more requests failed; read the error codes of the candidate run before its latencies.',
    );
  }
  return hints;
}
