/**
 * Energy and cost per token: one pure function from a run's summary and what the user said
 * of its GPUs and price (EfficiencyInputs) to `RunSummary.efficiency`. The formulas (and why
 * they are these) are in README.md, "Energy and cost per token".
 *
 * Power, all GPUs together, W, the first that is known:
 * 1. DCGM's energy counter: ΣΔenergy ÷ the scrape window (`server.gpu.energy`), measured, when
 *    it moved during the run;
 * 2. DCGM's power gauge: its mean over the scrapes (`server.gpu.powerW.mean`), measured;
 * 3. the server's own GPU power (Triton publishes DCGM's reading: `server.series.gpuPowerW`);
 * 4. `--gpu-power-watts` × GPUs, assumed (and said so in `assumptions`).
 * Energy = power × the run's duration (first send to last end), so every per-token figure
 * divides a quantity of the same window.
 *
 * GPUs: `--gpu-count`, else the DCGM exporter's count, else 1 (assumed, said so).
 *
 * @module
 */

import type { EfficiencyInputs, EfficiencySummary, EnergyFigures, RunSummary } from '../types.js';

/** The parts of a summary the figures read. */
export type EfficiencyBase = Pick<
  RunSummary,
  'duration' | 'total_input_tokens' | 'total_output_tokens' | 'goodput' | 'server'
>;

const per = (amount: number, tokens: number | undefined, scale = 1): number | undefined =>
  tokens !== undefined && tokens > 0 ? (amount / tokens) * scale : undefined;

/** Drops undefined fields (a summary holds no `undefined`). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The run's energy and cost figures; undefined when neither a power (measured or assumed) nor
 * a price is known, or the run has no duration.
 *
 * @example
 * ```ts
 * // 2 GPUs at an assumed 500 W for 100 s, 50,000 output tokens:
 * efficiencyOf(summary, { gpuPowerWatts: 500, gpuCount: 2 })!.energy!.joulesPerOutputToken; // 2
 * ```
 */
export function efficiencyOf(s: EfficiencyBase, inputs: EfficiencyInputs): EfficiencySummary | undefined {
  const seconds = s.duration;
  if (!(seconds > 0)) return undefined;
  const gpu = s.server?.gpu;
  const assumptions: string[] = [];
  const gpuCount = inputs.gpuCount ?? (gpu && gpu.gpuCount > 0 ? gpu.gpuCount : 1);
  const gpuCountSource =
    inputs.gpuCount !== undefined ? 'flag' : gpu && gpu.gpuCount > 0 ? 'dcgm' : 'assumed';

  let power: { watts: number; source: EnergyFigures['source'] } | undefined;
  // A counter that did not move (the exporter refreshes every few seconds) says nothing: the gauge does.
  if (gpu?.energy && gpu.energy.seconds > 0 && gpu.energy.joules > 0) {
    power = { watts: gpu.energy.joules / gpu.energy.seconds, source: 'dcgm-energy' };
  } else if (gpu?.powerW) {
    power = { watts: gpu.powerW.mean, source: 'dcgm-power' };
  } else if (s.server?.series.gpuPowerW) {
    power = { watts: s.server.series.gpuPowerW.mean, source: 'server-power' };
  } else if (inputs.gpuPowerWatts !== undefined) {
    power = { watts: inputs.gpuPowerWatts * gpuCount, source: 'assumed' };
    assumptions.push(
      `GPU power assumed, not measured: ${inputs.gpuPowerWatts} W per GPU × ${gpuCount} GPU${gpuCount === 1 ? '' : 's'} (--gpu-power-watts)`,
    );
  }
  if (power && power.source !== 'assumed' && inputs.gpuPowerWatts !== undefined) {
    assumptions.push(
      `--gpu-power-watts not used: ${power.source === 'server-power' ? 'the server' : 'the DCGM exporter'} measured the power`,
    );
  }
  const price = inputs.costPerHour;
  if (!power && price === undefined) return undefined;
  const pricePer = inputs.costPer ?? 'gpu';
  if (
    gpuCountSource === 'assumed' &&
    (power?.source === 'assumed' || (price !== undefined && pricePer === 'gpu'))
  ) {
    assumptions.push('1 GPU assumed (no DCGM exporter to count them; set --gpu-count)');
  }

  const out: EfficiencySummary = { inputs: defined({ ...inputs }), gpuCount, gpuCountSource, assumptions };
  const outputTokens = s.total_output_tokens;
  const goodTokens = s.goodput.goodOutputTokens;
  if (power) {
    const joules = power.watts * seconds;
    out.energy = defined({
      source: power.source,
      powerW: power.watts,
      joules,
      joulesPerOutputToken: per(joules, outputTokens),
      outputTokensPerJoule: joules > 0 && outputTokens > 0 ? outputTokens / joules : undefined,
      goodputPerWatt:
        goodTokens !== undefined && power.watts > 0 ? goodTokens / seconds / power.watts : undefined,
    });
  }
  if (price !== undefined) {
    const gpus = pricePer === 'gpu' ? gpuCount : 1;
    const deploymentCostPerHour = price * gpus;
    const runCost = (deploymentCostPerHour * seconds) / 3600;
    out.cost = defined({
      costPerHour: price,
      per: pricePer,
      gpus,
      deploymentCostPerHour,
      runCost,
      perMillionInputTokens: per(runCost, s.total_input_tokens, 1e6),
      perMillionOutputTokens: per(runCost, outputTokens, 1e6),
      perMillionGoodTokens: per(runCost, goodTokens, 1e6),
    });
  }
  return out;
}
