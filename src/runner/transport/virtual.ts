/**
 * The virtual transport (`--time virtual`): the embedded engine in-process on its simulated
 * clock (runner/virtual.ts), the load run through the run pipeline as a live one is, and the
 * engine's own counters as the run's server block.
 *
 * @module
 */

import type { SimProfile } from '../../sim/index.js';
import type { BenchmarkConfig } from '../config.js';
import { runPipeline } from '../pipeline.js';
import { localLoad } from '../plan.js';
import { createVirtualTransport } from '../virtual.js';
import type { Transport } from './types.js';

/** The engine of `profile` serving the run on its simulated clock. */
export function openVirtualTransport(config: BenchmarkConfig, profile: string | SimProfile): Transport {
  const engine = createVirtualTransport(config, profile);
  const { clock } = engine;
  return {
    clock,
    async run(plan, sinks) {
      const load = await runPipeline({
        ...localLoad(plan),
        send: engine.send,
        clock,
        signal: sinks.signal,
        writer: sinks.writer,
        ...(sinks.startAtMs !== undefined ? { startAtMs: sinks.startAtMs } : {}),
        sinks: sinks.records,
      });
      return { load, server: engine.server() };
    },
    close: async () => undefined,
  };
}
