/**
 * LoRA adapters of the simulated engine, served as vLLM serves them (`vllm serve MODEL
 * --enable-lora --lora-modules sql=PATH chat=PATH --max-loras 2`): a request names the base
 * model or an adapter in `model`; GET /v1/models lists the base model, then each adapter with
 * `parent` set to it.
 *
 * Scheduling (vLLM V1's scheduler): at most `maxLoras` distinct adapters run in a batch. A
 * waiting request whose adapter is not among the running requests' is skipped while that many
 * are already running (the requests behind it may go first), so with more adapters in use than
 * slots, requests wait for a slot. Base-model requests take no slot.
 *
 * Cost (roofline terms, docs/simulator.md): an adapter's weights are rank × (in + out) per
 * adapted linear layer (q, k, v, o, gate, up, down) in the model's dtype. A step reads the
 * weights of each adapter in it once and computes 2 FLOPs per adapter weight per token that
 * uses it; an adapter that enters one of the `maxLoras` GPU slots (least recently used out)
 * is first copied from host memory over PCIe.
 *
 * @module
 */

import type { ModelProfile, SimProfile } from './profiles.js';

/** vLLM's default `--max-loras`. */
export const DEFAULT_MAX_LORAS = 1;
/** vLLM's default `--max-lora-rank`. */
export const DEFAULT_MAX_LORA_RANK = 16;
/** Host-to-device copy rate of an adapter's weights (PCIe Gen4/5 x16, effective), bytes/s. */
const HOST_TO_DEVICE_BYTES_PER_S = 25e9;

/**
 * Weights of one adapter of rank `rank` on every linear layer of the model. The MLP width is
 * not in the profile: it is what the layer's parameters leave after attention (h → 3·h·I).
 */
export function loraParams(model: ModelProfile, rank: number): number {
  const h = model.hidden;
  const kv = model.kvHeads * model.headDim;
  const attention = 2 * h * h + 2 * h * kv;
  const mlpWidth = Math.max(h, (model.params / model.layers - attention) / (3 * h));
  // q and o: h→h; k and v: h→kv; gate and up: h→I; down: I→h.
  const perLayer = rank * (2 * (2 * h) + 2 * (h + kv) + 3 * (h + mlpWidth));
  return perLayer * model.layers;
}

/** The adapters resident on the GPU: `capacity` slots, least recently used out. */
export class LoraSlots {
  private readonly resident: string[] = [];
  constructor(private readonly capacity: number) {}

  /** Marks the step's adapters used; returns how many of them had to be loaded. */
  use(adapters: ReadonlySet<string>): number {
    let loaded = 0;
    for (const a of adapters) {
      const i = this.resident.indexOf(a);
      if (i >= 0) this.resident.splice(i, 1);
      else loaded++;
      this.resident.push(a);
    }
    while (this.resident.length > this.capacity) this.resident.shift();
    return loaded;
  }
}

/** Extra time of a step with adapters: their weights read and applied, and the ones loaded. */
export type LoraCost = (adapters: number, adapterTokens: number, loaded: number) => number;

/** The LoRA cost of a profile's model at `rank`, on its roofline's rates. */
export function createLoraCost(profile: SimProfile, rank: number): LoraCost {
  const { gpu, model, tensorParallel: tp } = profile;
  const flopsPerS = profile.stepTime?.flopsPerS ?? gpu.peakFlops * gpu.computeEfficiency * tp;
  const bytesPerS = profile.stepTime?.bytesPerS ?? gpu.memBandwidth * gpu.bandwidthEfficiency * tp;
  const params = loraParams(model, rank);
  const bytes = params * model.dtypeBytes;
  return (adapters, adapterTokens, loaded) => {
    if (adapters === 0) return 0;
    const readMs = ((adapters * bytes) / bytesPerS) * 1e3;
    const computeMs = ((2 * params * adapterTokens) / flopsPerS) * 1e3;
    const loadMs = ((loaded * bytes) / HOST_TO_DEVICE_BYTES_PER_S) * 1e3;
    return readMs + computeMs + loadMs;
  };
}

/**
 * `--lora-modules` values as vLLM takes them (`name=path`, several per flag) or plain names,
 * separated by spaces or commas: the adapter names (the simulator loads no weights).
 *
 * @example
 * parseLoraModules(['sql=/adapters/sql chat']); // ['sql', 'chat']
 */
export function parseLoraModules(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(/[\s,]+/))
    .filter((item) => item !== '')
    .map((item) => {
      const eq = item.indexOf('=');
      return eq < 0 ? item : item.slice(0, eq);
    });
}
