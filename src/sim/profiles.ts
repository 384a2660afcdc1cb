/**
 * Hardware and model profiles for the roofline: built-in GPUs and models with their public
 * specs, the `gpu[xN]:model` profile string, and user profiles given as JSON.
 *
 * GPU figures are dense BF16 tensor-core peaks and HBM bandwidth from NVIDIA's datasheets;
 * memory is what the CUDA runtime reports as total (a little under the marketing number).
 * Model figures come from each model's Hugging Face `config.json`.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import { readTextFileBounded } from '../util/index.js';

const GIB = 1024 ** 3;

export interface GpuProfile {
  name: string;
  /** Dense BF16 peak, FLOP/s. */
  peakFlops: number;
  /** HBM bandwidth, bytes/s. */
  memBandwidth: number;
  /** Device memory as reported by the runtime, bytes. */
  memoryBytes: number;
  /** GPU-to-GPU bandwidth per direction (NVLink or PCIe), bytes/s, for tensor-parallel all-reduce. */
  linkBandwidth: number;
  /** Latency of one all-reduce, microseconds. */
  allReduceLatencyUs: number;
  /** Fraction of peak FLOP/s reached by large GEMMs (prefill). */
  computeEfficiency: number;
  /** Fraction of HBM bandwidth reached by decode. */
  bandwidthEfficiency: number;
}

export interface ModelProfile {
  name: string;
  /** The id served in /v1/models, as vLLM serves the Hugging Face id. */
  servedName: string;
  params: number;
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Bytes per parameter and per KV element (2 = BF16). */
  dtypeBytes: number;
  maxContext: number;
  /** Tensor-parallel size used when the profile string does not say. */
  defaultTensorParallel: number;
}

/** A GPU, a model and a tensor-parallel size, plus the engine's fixed costs. */
export interface SimProfile {
  id: string;
  gpu: GpuProfile;
  model: ModelProfile;
  tensorParallel: number;
  /** Fixed per-step cost (scheduling, sampling, kernel launches), ms. */
  stepOverheadMs: number;
  /** Extra per-step cost per sequence in the batch (sampling, detokenising, streaming), µs. */
  perSeqOverheadUs: number;
  /** Measured rates that replace the datasheet ones (`goodput sim calibrate`); absent: from the GPU. */
  stepTime?: StepTimeRates;
}

/**
 * The roofline's two rates as measured on a real server, for the whole replica (every GPU of
 * the tensor-parallel group): they replace TP × peak × efficiency when a profile carries them.
 */
export interface StepTimeRates {
  /** Effective FLOP/s of prefill (replaces TP × peakFlops × computeEfficiency). */
  flopsPerS: number;
  /** Effective bytes/s of weight and KV reads (replaces TP × memBandwidth × bandwidthEfficiency). */
  bytesPerS: number;
}

const hopper = {
  linkBandwidth: 450e9,
  allReduceLatencyUs: 8,
  computeEfficiency: 0.6,
  bandwidthEfficiency: 0.8,
};

/** Built-in GPUs. */
export const GPU_PROFILES: Record<string, GpuProfile> = {
  h100: {
    name: 'H100-SXM5-80GB',
    peakFlops: 989e12,
    memBandwidth: 3.35e12,
    memoryBytes: 79.2 * GIB,
    ...hopper,
  },
  h200: {
    name: 'H200-SXM-141GB',
    peakFlops: 989e12,
    memBandwidth: 4.8e12,
    memoryBytes: 139.8 * GIB,
    ...hopper,
  },
  a100: {
    name: 'A100-SXM4-80GB',
    peakFlops: 312e12,
    memBandwidth: 2.039e12,
    memoryBytes: 79.2 * GIB,
    linkBandwidth: 300e9,
    allReduceLatencyUs: 10,
    computeEfficiency: 0.6,
    bandwidthEfficiency: 0.8,
  },
  l4: {
    name: 'L4-24GB',
    peakFlops: 121e12,
    memBandwidth: 300e9,
    memoryBytes: 22.0 * GIB,
    linkBandwidth: 25e9,
    allReduceLatencyUs: 20,
    computeEfficiency: 0.55,
    bandwidthEfficiency: 0.8,
  },
};

const llama = { heads: 32, kvHeads: 8, headDim: 128, dtypeBytes: 2, maxContext: 131072 };

/** Built-in models. */
export const MODEL_PROFILES: Record<string, ModelProfile> = {
  'llama-3.1-8b': {
    name: 'llama-3.1-8b',
    servedName: 'meta-llama/Llama-3.1-8B-Instruct',
    params: 8.03e9,
    layers: 32,
    hidden: 4096,
    ...llama,
    defaultTensorParallel: 1,
  },
  'llama-3.1-70b': {
    name: 'llama-3.1-70b',
    servedName: 'meta-llama/Llama-3.1-70B-Instruct',
    params: 70.6e9,
    layers: 80,
    hidden: 8192,
    ...llama,
    heads: 64,
    defaultTensorParallel: 4,
  },
  'qwen2.5-7b': {
    name: 'qwen2.5-7b',
    servedName: 'Qwen/Qwen2.5-7B-Instruct',
    params: 7.62e9,
    layers: 28,
    hidden: 3584,
    heads: 28,
    kvHeads: 4,
    headDim: 128,
    dtypeBytes: 2,
    maxContext: 32768,
    defaultTensorParallel: 1,
  },
};

export const DEFAULT_PROFILE = 'h100:llama-3.1-8b';
const DEFAULT_OVERHEAD = { stepOverheadMs: 1.5, perSeqOverheadUs: 15 };

/** KV-cache bytes per token for the whole model (K and V, every layer, every KV head). */
export function kvBytesPerToken(model: ModelProfile): number {
  return 2 * model.layers * model.kvHeads * model.headDim * model.dtypeBytes;
}

function usage(what: string, hint: string): GoodputError {
  return new GoodputError('E_SIM', what, hint);
}

/**
 * Resolve `gpu[xN]:model` (e.g. `h100:llama-3.1-8b`, `h100x4:llama-3.1-70b`) against the
 * built-in tables, an optional tensor-parallel override taking precedence over `xN`.
 */
export function resolveProfile(spec: string = DEFAULT_PROFILE, tensorParallel?: number): SimProfile {
  const m = /^([a-z0-9-]+?)(?:x(\d+))?:([a-z0-9.-]+)$/i.exec(spec.trim());
  if (!m)
    throw usage(`profile "${spec}" is not of the form gpu:model`, `use e.g. --profile ${DEFAULT_PROFILE}`);
  const gpu = GPU_PROFILES[m[1]!.toLowerCase()];
  const model = MODEL_PROFILES[m[3]!.toLowerCase()];
  if (!gpu) throw usage(`unknown GPU "${m[1]}"`, `use one of ${Object.keys(GPU_PROFILES).join(', ')}`);
  if (!model) throw usage(`unknown model "${m[3]}"`, `use one of ${Object.keys(MODEL_PROFILES).join(', ')}`);
  const tp = tensorParallel ?? (m[2] ? Number(m[2]) : model.defaultTensorParallel);
  return { id: spec, gpu, model, tensorParallel: tp, ...DEFAULT_OVERHEAD };
}

/** The JSON shape of a user profile: built-in names or full objects for gpu and model. */
export interface ProfileFile {
  id?: string;
  gpu: string | GpuProfile;
  model: string | ModelProfile;
  tensorParallel?: number;
  stepOverheadMs?: number;
  perSeqOverheadUs?: number;
  /** Calibrated rates (see StepTimeRates); written by `goodput sim calibrate`. */
  stepTime?: StepTimeRates;
  /** Where the calibration came from (runs, fit error): kept for the reader, not used by the engine. */
  calibration?: unknown;
}

const GPU_KEYS: (keyof GpuProfile)[] = ['peakFlops', 'memBandwidth', 'memoryBytes'];
const MODEL_KEYS: (keyof ModelProfile)[] = ['params', 'layers', 'hidden', 'heads', 'kvHeads', 'headDim'];

/** Build a profile from a parsed JSON object (see ProfileFile); unknown built-in names and missing numbers are errors. */
export function profileFromJson(json: unknown, source = 'profile'): SimProfile {
  const f = json as ProfileFile;
  if (!f || typeof f !== 'object') throw usage(`${source}: not a JSON object`, 'see docs/simulator.md');
  const gpu: GpuProfile | undefined =
    typeof f.gpu === 'string'
      ? GPU_PROFILES[f.gpu]
      : ({ ...hopper, name: 'custom', ...(f.gpu as Partial<GpuProfile>) } as GpuProfile);
  const modelDefaults = {
    name: 'custom',
    servedName: 'custom',
    dtypeBytes: 2,
    maxContext: 8192,
    defaultTensorParallel: 1,
  };
  const model: ModelProfile | undefined =
    typeof f.model === 'string'
      ? MODEL_PROFILES[f.model]
      : ({ ...modelDefaults, ...(f.model as Partial<ModelProfile>) } as ModelProfile);
  if (!gpu)
    throw usage(`${source}: unknown gpu "${String(f.gpu)}"`, `use one of ${Object.keys(GPU_PROFILES)}`);
  if (!model)
    throw usage(`${source}: unknown model "${String(f.model)}"`, `use one of ${Object.keys(MODEL_PROFILES)}`);
  for (const k of GPU_KEYS)
    if (!(typeof gpu[k] === 'number' && gpu[k] > 0))
      throw usage(`${source}: gpu.${k} must be a positive number`, 'see docs/simulator.md');
  for (const k of MODEL_KEYS)
    if (!(typeof model[k] === 'number' && (model[k] as number) > 0))
      throw usage(`${source}: model.${k} must be a positive number`, 'see docs/simulator.md');
  for (const k of ['stepOverheadMs', 'perSeqOverheadUs'] as const)
    if (f[k] !== undefined && !(typeof f[k] === 'number' && f[k] >= 0 && Number.isFinite(f[k])))
      throw usage(`${source}: ${k} must be a number ≥ 0`, 'see docs/simulator.md');
  const profile: SimProfile = {
    id: f.id ?? `${gpu.name}:${model.name}`,
    gpu,
    model,
    tensorParallel: f.tensorParallel ?? model.defaultTensorParallel,
    stepOverheadMs: f.stepOverheadMs ?? DEFAULT_OVERHEAD.stepOverheadMs,
    perSeqOverheadUs: f.perSeqOverheadUs ?? DEFAULT_OVERHEAD.perSeqOverheadUs,
  };
  if (f.stepTime !== undefined) profile.stepTime = stepTimeFromJson(f.stepTime, source);
  return profile;
}

/** A profile's `stepTime`: both rates, positive and finite, and nothing else. */
function stepTimeFromJson(json: unknown, source: string): StepTimeRates {
  const t = json as Record<string, unknown> | null;
  if (!t || typeof t !== 'object' || Array.isArray(t))
    throw usage(`${source}: stepTime must be an object {flopsPerS, bytesPerS}`, 'see docs/simulator.md');
  for (const k of Object.keys(t))
    if (k !== 'flopsPerS' && k !== 'bytesPerS')
      throw usage(
        `${source}: stepTime.${k} is not a field of stepTime`,
        'stepTime has flopsPerS and bytesPerS',
      );
  const rate = (k: 'flopsPerS' | 'bytesPerS'): number => {
    const v = t[k];
    if (typeof v === 'number' && v > 0 && Number.isFinite(v)) return v;
    throw usage(`${source}: stepTime.${k} must be a positive number`, 'see docs/simulator.md');
  };
  return { flopsPerS: rate('flopsPerS'), bytesPerS: rate('bytesPerS') };
}

/**
 * A profile as the JSON `profileFromJson` reads back: built-in GPU and model by name when they
 * are the built-in ones, else whole; `extra` fields (e.g. `calibration`) appended.
 */
export function profileToJson(profile: SimProfile, extra: Partial<ProfileFile> = {}): ProfileFile {
  const builtIn = <T>(table: Record<string, T>, value: T): string | T =>
    Object.entries(table).find(([, v]) => v === value)?.[0] ?? value;
  return {
    id: profile.id,
    gpu: builtIn(GPU_PROFILES, profile.gpu),
    model: builtIn(MODEL_PROFILES, profile.model),
    tensorParallel: profile.tensorParallel,
    stepOverheadMs: profile.stepOverheadMs,
    perSeqOverheadUs: profile.perSeqOverheadUs,
    ...(profile.stepTime ? { stepTime: { ...profile.stepTime } } : {}),
    ...extra,
  };
}

/** Read a user profile from a JSON file (bounded: a profile is small; /dev/zero is refused, not read). */
export async function loadProfileFile(path: string): Promise<SimProfile> {
  const file = await readTextFileBounded(path, { maxBytes: 1024 * 1024 });
  if (!file.ok) {
    throw usage(
      `cannot read --profile-file ${path}: ${file.problem}`,
      'pass --profile-file a JSON file of the profile',
    );
  }
  const text = file.text;
  try {
    return profileFromJson(JSON.parse(text), path);
  } catch (e) {
    if (e instanceof GoodputError) throw e;
    throw usage(`${path} is not valid JSON`, 'fix the JSON syntax');
  }
}
