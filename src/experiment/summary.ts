/**
 * The short per-configuration summary `goodput experiment` prints at the end: where things
 * are, runs done per configuration, and the mean across runs of TTFT P99, TPOT P99 and output
 * throughput (the experiment's analysis reads the same folders for the full matrix and
 * verdicts).
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentFile, RunSummary } from '../types.js';

export interface ConfigurationFigures {
  name: string;
  baseline: boolean;
  status: string;
  ok: number;
  runs: number;
  ttftP99Ms?: number;
  tpotP99Ms?: number;
  outputTokensPerS?: number;
  failure?: string;
}

const mean = (xs: number[]) => (xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Each configuration's runs and mean figures, read from its runs' summary.json. */
export function configurationFigures(state: ExperimentFile, dir: string): ConfigurationFigures[] {
  return state.configurations.map((c) => {
    const summaries: RunSummary[] = [];
    for (const r of c.runs) {
      if (r.status !== 'ok') continue;
      try {
        summaries.push(JSON.parse(readFileSync(join(dir, r.dir, 'summary.json'), 'utf8')) as RunSummary);
      } catch {
        // a run folder damaged since: left out of the means
      }
    }
    const f: ConfigurationFigures = {
      name: c.name,
      baseline: c.baseline,
      status: c.status,
      ok: c.runs.filter((r) => r.status === 'ok').length,
      runs: c.runs.length,
    };
    const ttft = mean(summaries.map((s) => s.p99_ttft_ms));
    const tpot = mean(summaries.map((s) => s.p99_tpot_ms));
    const tput = mean(summaries.map((s) => s.output_throughput));
    if (ttft !== undefined) f.ttftP99Ms = ttft;
    if (tpot !== undefined) f.tpotP99Ms = tpot;
    if (tput !== undefined) f.outputTokensPerS = tput;
    if (c.failure) f.failure = `${c.failure.code}: ${c.failure.message}`;
    return f;
  });
}

const num = (v: number | undefined, digits = 1) => (v === undefined ? '—' : v.toFixed(digits));

/** The summary as text (figures are means across a configuration's successful runs). */
export function renderExperimentSummary(state: ExperimentFile, dir: string): string {
  const rows = configurationFigures(state, dir);
  const lines = [
    `experiment ${state.name}: ${state.status}`,
    `  folder: ${dir} (experiment.json, runs/, logs/)`,
    '',
    `  ${'configuration'.padEnd(24)} ${'runs ok'.padStart(8)} ${'TTFT p99 ms'.padStart(12)} ${'TPOT p99 ms'.padStart(12)} ${'out tok/s'.padStart(10)}`,
  ];
  for (const r of rows) {
    const name = `${r.name}${r.baseline ? ' (baseline)' : ''}`;
    lines.push(
      `  ${name.padEnd(24)} ${`${r.ok}/${r.runs}`.padStart(8)} ${num(r.ttftP99Ms).padStart(12)} ${num(r.tpotP99Ms, 2).padStart(12)} ${num(r.outputTokensPerS).padStart(10)}`,
    );
    if (r.failure) lines.push(`    failed: ${r.failure}`);
  }
  lines.push('', '  means across runs; significance and the full matrix: the experiment analysis');
  return `${lines.join('\n')}\n`;
}
