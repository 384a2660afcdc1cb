/**
 * The human part of an experiment's ADR: Context (the experiment, its configurations and
 * their flags), the metrics matrix with every row, the reading, the Decision (the winner, or
 * no conclusion), solidified rules, the gate and its headroom, rollback, how to rerun, and
 * links. Returns Markdown.
 *
 * @module
 */

import { type ExperimentAnalysis, renderExperimentMarkdown, rowName } from '../experiment/analysis/index.js';
import { formatThreshold, gateSpecThresholds } from '../gate/index.js';
import type { TrafficClassSpec } from '../types.js';
import { markdownText } from '../util/index.js';
import { type AdrFrontMatter, formatRule } from './schema.js';

export interface ExperimentBodyInput {
  id: string;
  frontMatter: AdrFrontMatter;
  analysis: ExperimentAnalysis;
  headroom: number;
  context?: string | undefined;
  links: { experiment: string; configurations: Record<string, string> };
}

const code = (text: string) => `\`${text.replaceAll('`', "'")}\``;

function loadText(fm: AdrFrontMatter): string {
  const w = fm.workload;
  if (!w) return '';
  const l = w.load;
  const shape =
    l.mode === 'open'
      ? `open loop at ${l.rate == null ? 'an unlimited rate' : `${l.rate} req/s`}`
      : `closed loop, concurrency ${l.concurrency}`;
  const stop = [
    l.requests !== undefined ? `${l.requests} requests` : '',
    l.durationMs !== undefined ? `${l.durationMs / 1000} s` : '',
  ]
    .filter(Boolean)
    .join(' or ');
  const prompts = `prompts of ${w.workload.promptTokens} tokens${w.workload.systemPromptTokens ? ` after a shared ${w.workload.systemPromptTokens}-token system prompt` : ''}`;
  const classes = w.workload.classes ?? [];
  const what =
    classes.length > 0
      ? `traffic classes ${classes.map((c) => classText(c, w.workload)).join('; ')} (as the chosen configuration sent them)`
      : `${prompts}, up to ${w.workload.maxTokens} output tokens`;
  return `Workload of every run: ${shape}${stop ? `, ${stop}` : ''}; ${what}; model ${code(w.model)}.`;
}

/** "chat 70% (128-token prompts, up to 64 output tokens, priority 0)". */
function classText(
  c: TrafficClassSpec,
  run: Pick<NonNullable<AdrFrontMatter['workload']>['workload'], 'promptTokens' | 'maxTokens'>,
): string {
  const prompt = c.promptTokensDist
    ? 'prompt lengths drawn'
    : `${c.promptTokens ?? run.promptTokens}-token prompts`;
  const output = c.maxTokensDist
    ? 'output limits drawn'
    : `up to ${c.maxTokens ?? run.maxTokens} output tokens`;
  const extra = [
    c.priority !== undefined ? `priority ${c.priority}` : '',
    c.model !== undefined ? `model ${code(c.model)}` : '',
  ].filter(Boolean);
  return `${c.name} ${Math.round(c.share * 1000) / 10}% (${[prompt, output, ...extra].join(', ')})`;
}

/** Renders the Markdown body of an experiment's ADR. */
export function renderExperimentAdrBody(input: ExperimentBodyInput): string {
  const { analysis: a, frontMatter: fm } = input;
  const winner = a.configurations.find((r) => r.name === a.winner.name);
  const out: string[] = [
    `# ${input.id}: ${markdownText(fm.title)}`,
    '',
    `- Status: ${fm.status}`,
    `- Date: ${fm.date}`,
  ];
  out.push(
    `- Experiment: [${markdownText(input.links.experiment)}](${encodeURI(input.links.experiment)})`,
    '',
  );
  out.push('## Context', '');
  if (input.context) out.push(markdownText(input.context.trim()), '');
  out.push(
    `Experiment ${code(a.name)}: ${a.configurations.length} configurations × ${a.runsPerConfiguration} runs, ` +
      `${a.order.mode} order${a.order.seed !== undefined ? ` (seed ${a.order.seed})` : ''}${a.virtual ? ', on the embedded engine in virtual time' : ''}. ` +
      loadText(fm),
    '',
  );
  for (const r of a.configurations) {
    const flags = r.args && r.args.length > 0 ? code(r.args.join(' ')) : '(no flags recorded)';
    out.push(
      `- ${markdownText(rowName(a, r))}: ${flags}${r.status === 'failed' ? ` — failed: ${markdownText(r.failure ?? '')}` : ''}`,
    );
  }
  out.push('', '## Metrics matrix', '', renderExperimentMarkdown(a).trimEnd(), '');
  out.push('## Decision', '');
  if (winner) {
    out.push(`Adopt ${markdownText(rowName(a, winner))}: ${markdownText(a.winner.reason)}.`, '');
    if (winner.hypotheses.length > 0)
      out.push(
        `Why it helps (hypotheses from its significant changes): ${winner.hypotheses.map((h) => markdownText(h.text)).join('; ')}.`,
        '',
      );
  } else {
    out.push(
      `No conclusion: ${markdownText(a.winner.reason.replace(/^no conclusion: /, ''))}. Nothing is adopted, and \`goodput adr lint\` refuses this record until a decision is made (rerun with more runs: the matrix says how many each difference needs).`,
      '',
    );
  }
  out.push('## Solidified rules', '');
  const rules = fm.rules ?? [];
  if (rules.length === 0) out.push('_None: no configuration won._');
  for (const r of rules) out.push(`- ${code(formatRule(r))}${r.why ? ` — ${markdownText(r.why)}` : ''}`);
  if (rules.length > 0)
    out.push(
      '',
      'Checked on a serving configuration by `goodput adr enforce --config FILE --adr` this file.',
    );
  out.push('', '## Gate', '');
  const thresholds = gateSpecThresholds(fm.gate ?? {});
  if (thresholds.length === 0) out.push('_No threshold: no configuration won._');
  for (const t of thresholds) out.push(`- ${code(formatThreshold(t))}`);
  if (fm.gate) {
    const h = Math.round(input.headroom * 1000) / 10;
    out.push(
      '',
      `Limits come from ${markdownText(winner ? rowName(a, winner) : 'the winner')}'s 95% interval across its runs with a headroom of ${h}%: ` +
        `p99 latency limits = the interval's upper bound × ${1 + input.headroom}, the goodput minimum = its lower bound ÷ ${1 + input.headroom}` +
        `${fm.gate.attainment_min !== undefined ? `, the attainment minimum = its lower bound × ${1 - input.headroom / 4}` : ''}.`,
    );
  }
  out.push('', '## Rollback', '');
  if (fm.rollback) {
    const side =
      fm.rollback.above !== undefined ? `above ${fm.rollback.above}` : `below ${fm.rollback.below}`;
    out.push(
      `Roll back to the baseline configuration when ${code(fm.rollback.metric)} stays ${side} for ${fm.rollback.for}.`,
    );
  } else out.push('_No rollback rule._');
  out.push('', '## Rerun', '');
  const embedded = fm.workload?.target?.embedded === true;
  out.push(
    embedded
      ? "The workload block holds the load, prompts, sampling, seed and the winner's engine flags: `goodput gate --adr` this file `--time virtual` measures the winner again on the embedded engine and checks the gate."
      : 'The workload block holds the load, prompts, sampling and seed: `goodput gate --adr` this file `--url` the serving endpoint measures it again and checks the gate.',
  );
  out.push('', '## Results', '');
  for (const r of a.configurations) {
    const link = input.links.configurations[r.name];
    if (link) out.push(`- ${markdownText(rowName(a, r))}: [${markdownText(link)}](${encodeURI(link)})`);
  }
  return `${out.join('\n')}\n`;
}
