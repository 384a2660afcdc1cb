/**
 * The worker-pool transport (`--workers N`): N load workers, each with its own client and
 * event loop running its part of the plan (workers/), started and their connections opened
 * before the clock; the run's clock is their t0. What only workers need (a shared item
 * counter, the barrier before the measured phase, the stage users of each, the "run's last
 * item taken" flag) stays inside them.
 *
 * @module
 */

import { describeConnectionWarmup } from '../live-client.js';
import { fanOut } from '../pipeline.js';
import type { LoadPlan } from '../plan.js';
import type { PreparedTarget } from '../target.js';
import { RunClock } from '../timer.js';
import { startLoadWorkers } from '../workers/pool.js';
import type { Transport } from './types.js';

/** Starts the plan's load workers against the target and waits until each is ready. */
export async function openWorkerTransport(
  plan: LoadPlan,
  target: PreparedTarget,
  signal: AbortSignal | undefined,
  note: (text: string) => void,
): Promise<Transport> {
  const clock = new RunClock();
  const { workers } = plan;
  const pool = await startLoadWorkers({
    config: plan.config,
    load: plan.load,
    ...(plan.split && plan.shard ? { shard: plan.shard } : {}),
    baseUrl: target.baseUrl,
    model: target.model,
    workers,
    signal,
  });
  note(
    pool.threads
      ? `load: ${workers} worker threads`
      : `load: ${workers} load workers on this thread (worker threads need the built package)`,
  );
  const warmupNote = describeConnectionWarmup(pool.connectionWarmup);
  if (warmupNote) note(warmupNote);
  clock.reset();
  return {
    clock,
    async run(_plan, sinks) {
      const load = await pool.run({
        clock,
        signal: sinks.signal,
        writer: sinks.writer,
        onRecord: fanOut(sinks.records),
        ...(sinks.startAtMs !== undefined ? { startAtMs: sinks.startAtMs } : {}),
      });
      return { load, connectionWarmup: pool.connectionWarmup };
    },
    close: () => pool.close().catch(() => undefined),
  };
}
