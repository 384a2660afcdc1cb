/**
 * The Decision section of a new ADR: what was decided and on what evidence, the trade-off
 * (what got worse, or what is not known, from the comparison) and the consequences (what CI
 * enforces from now on, and what to watch). Returns Markdown lines; no I/O.
 *
 * @module
 */

import { formatChange, type MetricDelta, type RunComparison } from '../compare/index.js';
import { formatThreshold, gateSpecThresholds } from '../gate/index.js';
import type { ExperimentVerdict } from './build.js';
import { type AdrFrontMatter, formatRule } from './schema.js';

export interface DecisionInput {
  /** "Exp-2", and the run's name when it has one. */
  chosenLabel: string;
  chosenName?: string;
  comparison?: RunComparison;
  verdict?: ExperimentVerdict;
  frontMatter: AdrFrontMatter;
}

const changeText = (d: MetricDelta) => `${d.label} ${formatChange({ ...d, ci: undefined })}`;

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

function decisionLine(input: DecisionInput): string {
  const named = input.chosenName !== undefined && input.chosenName !== input.chosenLabel;
  const what = `Adopt the configuration of ${input.chosenLabel}${named ? ` (\`${input.chosenName}\`)` : ''}`;
  const v = input.verdict;
  if (!v) return `${what}.`;
  if (v.verdict === 'no verdict') {
    return `${what}, without a verdict yet: the comparison with the baseline could not judge any key metric (${v.why}).`;
  }
  if (v.better.length > 0) {
    return `${what}: against the baseline it improved ${list(v.better.map(changeText))} (verdict: ${v.verdict}).`;
  }
  return `${what}, although the comparison with the baseline found ${v.verdict === 'worse' ? 'it worse' : 'no significant change'} on the key metrics (verdict: ${v.verdict}).`;
}

/** What got worse: every metric with a "worse" verdict, key metrics first. */
function tradeOff(input: DecisionInput): string {
  const v = input.verdict;
  if (!v || v.verdict === 'no verdict') {
    return 'Trade-off: not known yet. With no verdict, neither the gain nor what it costs is established; repeat the runs (`goodput compare` says how many would resolve the difference) before relying on this decision.';
  }
  const worse = input.comparison?.deltas.filter((d) => d.verdict === 'worse') ?? [];
  if (worse.length > 0)
    return `Trade-off: ${list(worse.map(changeText))} got worse, and is accepted for the gain above.`;
  return 'Trade-off: no measured metric got significantly worse in this comparison. What it costs outside these runs (other loads, prompt lengths, memory headroom) was not measured.';
}

/** What CI enforces from now on, and what to watch. */
function consequences(input: DecisionInput): string[] {
  const fm = input.frontMatter;
  const out: string[] = ['Consequences:', ''];
  const rules = fm.rules ?? [];
  out.push(
    rules.length > 0
      ? `- \`goodput adr enforce\` refuses a serving configuration that breaks ${rules.map((r) => `\`${formatRule(r)}\``).join(', ')}; \`goodput adr check\` refuses a change of serving parameters without a new ADR.`
      : '- No serving-parameter rule is recorded, so `goodput adr enforce` has nothing to hold the configuration to: add rules with `--rule`.',
  );
  const limits = gateSpecThresholds(fm.gate ?? {}).map((t) => `\`${formatThreshold(t)}\``);
  if (limits.length > 0)
    out.push(`- \`goodput gate --adr\` fails a release under this ADR's workload unless ${list(limits)}.`);
  if (fm.rollback) {
    const side =
      fm.rollback.above !== undefined ? `above ${fm.rollback.above}` : `below ${fm.rollback.below}`;
    out.push(
      `- \`goodput watch --adr\` rolls back when \`${fm.rollback.metric}\` stays ${side} for ${fm.rollback.for}.`,
    );
  }
  const worse = input.comparison?.deltas.filter((d) => d.verdict === 'worse') ?? [];
  if (worse.length > 0) out.push(`- Watch ${list(worse.map((d) => d.label))}: the trade-off above.`);
  return out;
}

/** The lines of the Decision section (without its heading). */
export function decisionSection(input: DecisionInput): string[] {
  return [decisionLine(input), '', tradeOff(input), '', ...consequences(input)];
}
