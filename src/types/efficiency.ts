/**
 * Energy and cost of a run (`RunSummary.efficiency`): the GPUs' energy from their DCGM
 * exporter, or from an assumed power (`--gpu-power-watts`, stated as an assumption), and the
 * deployment's cost from `--cost-per-hour` (per GPU or per deployment, `--cost-per`), turned
 * into figures per token. Computed once by metrics/efficiency.ts; the formulas are in
 * README.md, "Energy and cost per token".
 *
 * @module
 */

/** What the run was told about its GPUs and their price (the flags as given). */
export interface EfficiencyInputs {
  /** `--gpu-power-watts`: the mean draw of one GPU, W, used when no DCGM exporter measured it. */
  gpuPowerWatts?: number;
  /** `--gpu-count`: GPUs serving the endpoint (default: the DCGM exporter's count, else 1). */
  gpuCount?: number;
  /** `--cost-per-hour`: the price of an hour, in the user's currency. */
  costPerHour?: number;
  /** `--cost-per`: whether that price is for one GPU or the whole deployment (default gpu). */
  costPer?: 'gpu' | 'deployment';
}

/**
 * Where the power came from: DCGM's energy counter, DCGM's power gauge, the server's own GPU
 * power (Triton's nv_gpu_power_usage), or `--gpu-power-watts`.
 */
export type EnergySource = 'dcgm-energy' | 'dcgm-power' | 'server-power' | 'assumed';

export interface EnergyFigures {
  source: EnergySource;
  /** Mean power of all the GPUs together over the run, W. */
  powerW: number;
  /** powerW × the run's duration, J. */
  joules: number;
  /** joules ÷ output tokens of the run (absent without output tokens). */
  joulesPerOutputToken?: number;
  /** Output tokens ÷ joules. */
  outputTokensPerJoule?: number;
  /**
   * Good-token throughput ÷ powerW: output tokens of the requests that met every SLO, per
   * second, per watt (= good output tokens per joule). Absent when no good-token count was kept.
   */
  goodputPerWatt?: number;
}

export interface CostFigures {
  /** The price of an hour as given, and what it is for. */
  costPerHour: number;
  per: 'gpu' | 'deployment';
  /** GPUs the price was multiplied by (1 for a deployment price). */
  gpus: number;
  /** The deployment's price of an hour: costPerHour × gpus. */
  deploymentCostPerHour: number;
  /** The run's cost: deploymentCostPerHour × duration ÷ 3600. */
  runCost: number;
  /** runCost per million input tokens, output tokens, and good tokens (output tokens of requests that met every SLO). */
  perMillionInputTokens?: number;
  perMillionOutputTokens?: number;
  perMillionGoodTokens?: number;
}

export interface EfficiencySummary {
  inputs: EfficiencyInputs;
  /** GPUs the figures cover, and where that count came from. */
  gpuCount: number;
  gpuCountSource: 'flag' | 'dcgm' | 'assumed';
  energy?: EnergyFigures;
  cost?: CostFigures;
  /** What was assumed rather than measured, in words (shown in the summary and the report). */
  assumptions: string[];
}
