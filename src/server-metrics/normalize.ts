/**
 * Normalisation: one engine's Prometheus names → goodput's server vocabulary
 * (ServerSeriesName), by the engine's dialect table (dialects.ts, where the sources of the
 * names are cited): the engine is detected from the names, each rule's first present
 * candidate is read and its label sets combined.
 *
 * @module
 */

import type { ServerSample } from '../types.js';
import {
  type Aggregation,
  counter,
  dialectOf,
  engineOfName,
  type NameRef,
  type ServerEngine,
} from './dialects.js';
import type { PromExposition, PromSample } from './parse.js';

export type { ServerEngine } from './dialects.js';

/**
 * Which engine exposed these samples, from the metric names: the simulator's own names win,
 * then the first engine named; Dynamo's names only when no engine's own are there (a Dynamo
 * worker's page passes its engine's metrics through, and they say more).
 */
export function detectEngine(samples: readonly PromSample[]): ServerEngine {
  let engine: ServerEngine = 'unknown';
  let dynamo = false;
  for (const s of samples) {
    const named = engineOfName(s.name);
    if (named === undefined) continue;
    if (named === 'goodput-sim') return named;
    if (named === 'dynamo') dynamo = true;
    else if (engine === 'unknown') engine = named;
  }
  return engine === 'unknown' && dynamo ? 'dynamo' : engine;
}

/** Groups sample values by name (every label set), skipping NaN. */
function valuesByName(samples: readonly PromSample[]): Map<string, number[]> {
  const byName = new Map<string, number[]>();
  for (const s of samples) {
    if (Number.isNaN(s.value)) continue;
    let list = byName.get(s.name);
    if (!list) {
      list = [];
      byName.set(s.name, list);
    }
    list.push(s.value);
  }
  return byName;
}

/** The values of the samples named `ref.name` that carry its label (every other label set), skipping NaN. */
function labelled(samples: readonly PromSample[], ref: NameRef): number[] {
  const out: number[] = [];
  for (const s of samples) {
    if (s.name !== ref.name || Number.isNaN(s.value)) continue;
    if (ref.label && s.labels[ref.label[0]] !== ref.label[1]) continue;
    out.push(s.value);
  }
  return out;
}

function aggregate(values: number[], agg: Aggregation): number {
  let acc = agg === 'max' ? Number.NEGATIVE_INFINITY : 0;
  for (const v of values) acc = agg === 'max' ? Math.max(acc, v) : acc + v;
  return agg === 'mean' ? acc / values.length : acc;
}

/** vLLM's cache_config_info carries the KV layout in labels: block_size and num_gpu_blocks. */
function cacheLayout(samples: readonly PromSample[]): { blockSize?: number; numBlocks?: number } {
  let blockSize: number | undefined;
  let numBlocks: number | undefined;
  for (const s of samples) {
    if (s.name !== 'vllm:cache_config_info' && s.name !== 'vllm:cache_config') continue;
    const bs = Number(s.labels.block_size);
    const nb = Number(s.labels.num_gpu_blocks);
    if (s.labels.block_size !== undefined && Number.isFinite(bs) && bs > 0) {
      blockSize = Math.max(blockSize ?? 0, bs);
    }
    // Data-parallel engines each report their own pool: the blocks add up.
    if (s.labels.num_gpu_blocks !== undefined && Number.isFinite(nb) && nb > 0) {
      numBlocks = (numBlocks ?? 0) + nb;
    }
  }
  return { blockSize, numBlocks };
}

/** Draft positions kept at most: vLLM drafts a handful; a hostile `position` label must not size an array. */
const MAX_DRAFT_POSITIONS = 64;

/**
 * vLLM's accepted tokens per draft position (vllm/v1/spec_decode/metrics.py: counter
 * `vllm:spec_decode_num_accepted_tokens_per_pos`, labels of the engine plus `position`, from 0):
 * summed across engines by position; a position missing below the highest seen counts 0.
 */
function acceptedByPosition(samples: readonly PromSample[]): number[] | undefined {
  for (const name of counter('vllm:spec_decode_num_accepted_tokens_per_pos')) {
    const byPos: number[] = [];
    let found = false;
    for (const s of samples) {
      if (s.name !== name || Number.isNaN(s.value)) continue;
      const label = s.labels.position;
      const pos = Number(label);
      if (label === undefined || label === '' || !Number.isInteger(pos) || pos < 0) continue;
      if (pos >= MAX_DRAFT_POSITIONS) continue;
      found = true;
      byPos[pos] = (byPos[pos] ?? 0) + s.value;
    }
    if (found) return Array.from(byPos, (v) => v ?? 0);
  }
  return undefined;
}

/** One scrape normalised: a ServerSample without its time. */
export type NormalizedScrape = Omit<ServerSample, 'tMs'>;

/**
 * Normalises one parsed scrape into goodput's vocabulary.
 *
 * @param engine force an engine instead of detecting it from the names
 */
export function normalizeExposition(
  exposition: Pick<PromExposition, 'samples'>,
  engine: ServerEngine = detectEngine(exposition.samples),
): NormalizedScrape {
  const samples = exposition.samples;
  const byName = valuesByName(samples);
  const dialect = dialectOf(engine, (prefix) => samples.some((s) => s.name.startsWith(prefix)));
  const read = (ref: string | NameRef): number[] | undefined =>
    typeof ref === 'string' ? byName.get(ref) : labelled(samples, ref);
  const values: ServerSample['values'] = {};
  for (const rule of dialect.rules) {
    if (values[rule.series] !== undefined) continue;
    for (const ref of rule.names) {
      const list = read(ref);
      if (list && list.length > 0) {
        values[rule.series] = aggregate(list, rule.agg);
        break;
      }
    }
  }
  if (dialect.kvUsageFrom && values.kvUsage === undefined) {
    const used = read(dialect.kvUsageFrom.used);
    const max = read(dialect.kvUsageFrom.capacity);
    if (used?.length && max?.length) {
      const capacity = aggregate(max, 'sum');
      if (capacity > 0) values.kvUsage = aggregate(used, 'sum') / capacity;
    }
  }
  if (engine === 'vllm' || engine === 'goodput-sim') {
    const { blockSize, numBlocks } = cacheLayout(samples);
    if (blockSize !== undefined) values.blockSize = blockSize;
    if (numBlocks !== undefined) values.numBlocks = numBlocks;
    const perPos = acceptedByPosition(samples);
    if (perPos) return { engine, values, specAcceptedByPosition: perPos };
  }
  return { engine, values };
}
