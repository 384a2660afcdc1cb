/**
 * The human part of a new ADR: Context, Metrics matrix, Decision, Solidified rules,
 * Rollback and links to the result directories. Returns Markdown.
 *
 * @module
 */

import { formatChange, type RunInput } from '../compare/index.js';
import { formatThreshold, gateSpecThresholds } from '../gate/index.js';
import { outputLimitText, runCaveats, traceSendsText } from '../metrics/index.js';
import type { RunSummary } from '../types.js';
import { markdownCode, markdownText } from '../util/index.js';
import { experimentVerdict, type NewAdrInput } from './build.js';
import { decisionSection } from './decision.js';
import { type AdrFrontMatter, formatRule } from './schema.js';

export interface BodyInput extends NewAdrInput {
  id: string;
  chosenIndex: number;
  frontMatter: AdrFrontMatter;
}

function num(v: number | undefined, digits = 1): string {
  return v === undefined || Number.isNaN(v) ? '—' : v.toFixed(digits);
}

function loadText(s: RunSummary): string {
  const { load, workload, sampling, model } = s.meta;
  const trace = traceSendsText(s.meta);
  const shape = load.stages
    ? `stages of ${load.stagesOf ?? 'concurrency'} ${load.stages.map((st) => `${st.durationMs / 1000}s:${st.target}`).join(',')}`
    : load.sessions
      ? load.sessions.rate !== undefined
        ? `multi-turn sessions arriving at ${load.sessions.rate}/s`
        : `multi-turn sessions, ${load.sessions.concurrency ?? load.concurrency} at once`
      : trace !== undefined
        ? trace
        : load.mode === 'open'
          ? `open loop at ${load.rate == null || load.rate === Number.POSITIVE_INFINITY ? 'an unlimited rate' : `${load.rate} req/s`}${load.maxConcurrency ? ` (max ${load.maxConcurrency} in flight)` : ''}`
          : `closed loop, concurrency ${load.concurrency}`;
  const stop = [
    load.requests !== undefined ? `${load.requests} requests` : undefined,
    load.durationMs !== undefined ? `${load.durationMs / 1000} s` : undefined,
  ]
    .filter(Boolean)
    .join(' or ');
  const prompts =
    workload.kind === 'trace'
      ? `prompts from trace ${markdownCode(workload.trace?.path ?? '')} (${workload.trace?.entries ?? '?'} requests)`
      : workload.kind === 'dataset'
        ? `prompts from dataset ${markdownCode(workload.dataset?.path ?? '')} (${workload.dataset?.entries ?? '?'} entries)`
        : `synthetic prompts of ${workload.promptTokens} tokens${workload.promptTokensRange ? ` ±${workload.promptTokensRange * 100}%` : ''}${workload.systemPromptTokens ? ` after a ${workload.systemPromptTokens}-token system prompt` : ''}`;
  return (
    `Load: ${shape}, ${stop || 'until stopped'} (warmup ${load.warmup}); ${prompts}, ` +
    `${outputLimitText(workload)}; model ${markdownCode(model)}; temperature ${sampling.temperature}.`
  );
}

function kvFragmentation(s: RunSummary): number | undefined {
  return s.server?.kvFragmentation ?? s.server?.series.kvFragmentation?.mean;
}

function matrix(input: BodyInput): string[] {
  const runs: Array<{ label: string; run: RunInput; verdict: string }> = [
    { label: 'Baseline', run: input.baseline, verdict: '—' },
    ...input.candidates.map((run, i) => {
      const c = input.report.comparisons[i];
      const v = c ? experimentVerdict(c) : undefined;
      const changes = v
        ? [...v.better, ...v.worse].map((d) => `${d.label} ${formatChange({ ...d, ci: undefined })}`)
        : [];
      const verdict = v ? `${v.verdict}${changes.length > 0 ? ` (${changes.join('; ')})` : ''}` : '—';
      return { label: `Exp-${i + 1}${i === input.chosenIndex ? ' (chosen)' : ''}`, run, verdict };
    }),
  ];
  const withKv = runs.some((r) => kvFragmentation(r.run.summary) !== undefined);
  const header = ['Run', 'TTFT P99 (ms)', 'TPOT P99 (ms)', 'Goodput (req/s)', 'SLO attainment'];
  if (withKv) header.push('KV fragmentation');
  header.push('Verdict');
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const r of runs) {
    const s = r.run.summary;
    const cells = [
      r.label,
      num(s.p99_ttft_ms),
      num(s.p99_tpot_ms, 2),
      num(s.request_goodput, 2),
      num(s.goodput.attainment, 3),
    ];
    if (withKv) cells.push(num(kvFragmentation(s), 3));
    cells.push(r.verdict);
    lines.push(`| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`);
  }
  lines.push('', 'Verdicts against the baseline at 95% confidence (`goodput compare` on the same runs).');
  return lines;
}

/** The runs' caveats under the matrix (none: nothing): a figure the client limited is not the server's. */
function caveatLines(input: BodyInput): string[] {
  const runs = [
    { label: 'Baseline', summary: input.baseline.summary },
    ...input.candidates.map((run, i) => ({ label: `Exp-${i + 1}`, summary: run.summary })),
  ];
  const lines = runs.flatMap(({ label, summary }) =>
    runCaveats(summary).map((c) => `- ${label}: ${markdownText(c.text)}`),
  );
  return lines.length > 0
    ? ["Caveats (these runs' figures may not be what the server can do):", '', ...lines, '']
    : [];
}

/** Renders the Markdown body of a new ADR. */
export function renderAdrBody(input: BodyInput): string {
  const fm = input.frontMatter;
  const base = input.baseline.summary;
  const chosen = input.candidates[input.chosenIndex];
  const out: string[] = [
    `# ${input.id}: ${input.title}`,
    '',
    `- Status: ${fm.status}`,
    `- Date: ${fm.date}`,
    '',
  ];
  out.push('## Context', '');
  if (input.context) out.push(input.context.trim(), '');
  out.push(loadText(base), '');
  out.push(
    `Symptom at the baseline: TTFT p99 ${num(base.p99_ttft_ms)} ms, TPOT p99 ${num(base.p99_tpot_ms, 2)} ms, ` +
      `goodput ${num(base.request_goodput, 2)} req/s (SLO attainment ${num(base.goodput.attainment, 3)}), ` +
      `${base.counts.failed} of ${base.counts.attempted} requests failed.`,
    '',
  );
  out.push('## Metrics matrix', '', ...matrix(input), '');
  out.push(...caveatLines(input));
  out.push('## Decision', '');
  const comparison = input.report.comparisons[input.chosenIndex];
  const decision: Parameters<typeof decisionSection>[0] = {
    chosenLabel: `Exp-${input.chosenIndex + 1}`,
    frontMatter: fm,
  };
  if (chosen) decision.chosenName = chosen.name;
  if (comparison) {
    decision.comparison = comparison;
    decision.verdict = experimentVerdict(comparison);
  }
  out.push(...decisionSection(decision), '');
  out.push('## Solidified rules', '');
  const rules = fm.rules ?? [];
  if (rules.length === 0) out.push('_No serving-parameter rule recorded: add them with `--rule`._');
  for (const r of rules) out.push(`- \`${formatRule(r)}\`${r.why ? ` — ${r.why}` : ''}`);
  out.push('', 'Gate (`goodput gate --adr` on this file):', '');
  for (const t of gateSpecThresholds(fm.gate ?? {})) out.push(`- \`${formatThreshold(t)}\``);
  if (fm.gate?.headroom !== undefined)
    out.push('', `Limits carry a headroom of ${fm.gate.headroom * 100}% over Exp-${input.chosenIndex + 1}.`);
  out.push('', '## Rollback', '');
  if (fm.rollback) {
    const side =
      fm.rollback.above !== undefined ? `above ${fm.rollback.above}` : `below ${fm.rollback.below}`;
    out.push(
      `Roll back to the baseline configuration when \`${fm.rollback.metric}\` stays ${side} for ${fm.rollback.for}.`,
    );
  } else {
    out.push('_No rollback rule._');
  }
  out.push('', '## Results', '');
  out.push(`- Baseline: [${input.links.baseline}](${encodeURI(input.links.baseline)})`);
  input.links.candidates.forEach((link, i) => {
    out.push(`- Exp-${i + 1}: [${link}](${encodeURI(link)})`);
  });
  return `${out.join('\n')}\n`;
}
