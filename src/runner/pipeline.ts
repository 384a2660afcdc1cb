/**
 * The run pipeline shared by every kind of run: RunMeta built in one place, and records
 * flowing from the load loop to a list of sinks (JSONL writer, accumulator, progress bar,
 * server-metrics recorder, diagnosis sample, watch's store and exporter) as they complete.
 * The loop runs on the clock it is given, live or virtual (`LoadClock.run`).
 *
 * @module
 */

import type { LoadSpec, RequestRecord, RunMeta, Sampling, Slo, WorkloadSpec } from '../types.js';
import { type LoadResult, type RunLoadOptions, runLoad } from './load.js';
import type { PreparedTarget } from './target.js';

/** What a RunMeta says about a run beyond its target and workload. */
export interface RunMetaParts {
  sampling: Sampling;
  load: LoadSpec;
  slo: Slo;
  seed: number;
  labels?: Record<string, string>;
}

/** The RunMeta of one run: the only place one is built. */
export function buildRunMeta(
  parts: RunMetaParts,
  target: Pick<PreparedTarget, 'info' | 'model'>,
  workload: WorkloadSpec,
  run: { runId: string; startedAt: Date | string; version?: string },
): RunMeta {
  const meta: RunMeta = {
    tool: { name: 'goodput', version: run.version ?? '0.0.0' },
    runId: run.runId,
    startedAt: typeof run.startedAt === 'string' ? run.startedAt : run.startedAt.toISOString(),
    target: target.info,
    model: target.model,
    sampling: parts.sampling,
    workload,
    load: parts.load,
    slo: parts.slo,
    seed: parts.seed,
  };
  if (parts.labels) meta.labels = parts.labels;
  return meta;
}

/** Receives every record (warmup included) as it completes; must not throw. */
export type RecordSinkFn = (record: RequestRecord) => void;

export interface PipelineOptions extends Omit<RunLoadOptions, 'onRecord' | 'backpressure'> {
  /** Called in order with every record. */
  sinks: ReadonlyArray<RecordSinkFn | undefined>;
  /** The JSONL writer, when there is one: closed-loop workers wait while it is backlogged. */
  writer?: { readonly backlogged: boolean; drained(): Promise<void> };
}

/** One sink that hands every record to each of `sinks` in order (undefined ones skipped). */
export function fanOut(sinks: ReadonlyArray<RecordSinkFn | undefined>): RecordSinkFn {
  const active = sinks.filter((s): s is RecordSinkFn => s !== undefined);
  return (record) => {
    for (const sink of active) sink(record);
  };
}

/** Runs the load on its clock with records flowing to the sinks; resolves with the load's result. */
export function runPipeline(opts: PipelineOptions): Promise<LoadResult> {
  const { sinks, writer, ...load } = opts;
  const onRecord = fanOut(sinks);
  let draining: Promise<void> | undefined;
  return opts.clock.run(
    runLoad({
      ...load,
      backpressure: writer
        ? () => {
            if (!writer.backlogged) return undefined;
            // One shared wait, however many workers are blocked on it.
            draining ??= writer.drained().finally(() => {
              draining = undefined;
            });
            return draining;
          }
        : undefined,
      onRecord,
    }),
  );
}
