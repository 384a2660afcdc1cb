/**
 * The energy and cost lines of a run report (the summary's `efficiency`): energy per output
 * token, output tokens per joule, goodput per watt, and cost per million input, output and good
 * tokens, each saying where its power or price came from; then what was assumed. The terminal,
 * Markdown and HTML reports show these same lines.
 *
 * @module
 */

import type { EfficiencySummary, EnergyFigures } from '../types.js';
import { fmtInt } from './format.js';

/** Three significant digits: energy and prices span orders of magnitude (0.0412 J, 2.31 per Mtok). */
const sig = (v: number): string => (Math.abs(v) >= 1000 ? fmtInt(v) : String(Number(v.toPrecision(3))));

const SOURCE: Record<EnergyFigures['source'], string> = {
  'dcgm-energy': "the DCGM exporter's energy counter",
  'dcgm-power': "the DCGM exporter's mean power",
  'server-power': "the server's own GPU power gauge",
  assumed: '--gpu-power-watts, ASSUMED',
};

/** Label / value lines; empty without the block. */
export function efficiencyLines(eff: EfficiencySummary | undefined): Array<[string, string]> {
  if (!eff) return [];
  const lines: Array<[string, string]> = [];
  const gpus = `${eff.gpuCount} GPU${eff.gpuCount === 1 ? '' : 's'}`;
  const en = eff.energy;
  if (en) {
    lines.push([
      'GPU energy',
      `${sig(en.joules)} J at ${sig(en.powerW)} W (${gpus}; power from ${SOURCE[en.source]})`,
    ]);
    if (en.joulesPerOutputToken !== undefined)
      lines.push(['energy per output token', `${sig(en.joulesPerOutputToken)} J/tok`]);
    if (en.outputTokensPerJoule !== undefined)
      lines.push(['output tokens per joule', `${sig(en.outputTokensPerJoule)} tok/J`]);
    if (en.goodputPerWatt !== undefined)
      lines.push(['goodput per watt', `${sig(en.goodputPerWatt)} good tok/s per W`]);
  }
  const c = eff.cost;
  if (c) {
    const priced = c.per === 'gpu' ? `${sig(c.costPerHour)} per GPU-hour × ${c.gpus}` : 'per deployment-hour';
    lines.push([
      'deployment cost',
      `${sig(c.deploymentCostPerHour)} per hour (${priced}); this run ${sig(c.runCost)}`,
    ]);
    if (c.perMillionInputTokens !== undefined)
      lines.push(['cost per million input tokens', sig(c.perMillionInputTokens)]);
    if (c.perMillionOutputTokens !== undefined)
      lines.push(['cost per million output tokens', sig(c.perMillionOutputTokens)]);
    if (c.perMillionGoodTokens !== undefined)
      lines.push([
        'cost per million good tokens',
        `${sig(c.perMillionGoodTokens)} (output tokens of requests that met the SLO)`,
      ]);
  }
  for (const a of eff.assumptions) lines.push(['assumption', a]);
  return lines;
}
