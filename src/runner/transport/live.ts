/**
 * The live transport: a client of the target on this thread, its connections opened before
 * the clock starts (bounded, see live-client.ts), the load run through the run pipeline. The
 * pool is held within this process's open-file limit (a connection that cannot get a file
 * descriptor would fail, and so would the files and modules the run opens after it).
 *
 * @module
 */

import { describeLocalLimits, readLocalLimits, sourcePlan } from '../../client/index.js';
import type { ConnectionWarmup } from '../../types.js';
import { connectionUse, HeadersTally } from '../connection-use.js';
import {
  createRunClient,
  describeConnectionWarmup,
  filesCapOf,
  planConnections,
  warmConnections,
} from '../live-client.js';
import { waitsOnClock } from '../load.js';
import { runPipeline } from '../pipeline.js';
import { type LoadPlan, localLoad, ownConfig } from '../plan.js';
import type { PreparedTarget } from '../target.js';
import { RunClock } from '../timer.js';
import type { Transport } from './types.js';

/** Opens a client of the target for the plan, its connections warm; `note` says what fell short. */
export async function openLiveTransport(
  plan: LoadPlan,
  target: PreparedTarget,
  signal: AbortSignal | undefined,
  note: (text: string) => void,
): Promise<Transport> {
  const config = ownConfig(plan);
  const { load, workload } = plan;
  const clock = new RunClock({
    bootPacer: waitsOnClock(load, workload.sessions, workload.agents, config.startAtMs),
  });
  const limits = readLocalLimits();
  // The embedded engine serves from this process: each connection takes a descriptor at both ends.
  const filesPerConnection = target.info.embedded ? 2 : 1;
  const connectionPlan = planConnections(
    config.load,
    config.sampling.maxTokens,
    filesCapOf(limits, target.info.embedded),
  );
  const limitsNote = describeLocalLimits(
    connectionPlan.limit ?? connectionPlan.warm,
    limits,
    sourcePlan(new URL(target.baseUrl).hostname, config.load.connections?.sourceAddresses),
    {
      filesPerConnection,
      ...(connectionPlan.filesCap ? { filesCap: connectionPlan.filesCap.connections } : {}),
    },
  );
  if (limitsNote) note(limitsNote);
  const client = createRunClient(config, target, config.load, plan.tokenizer, clock, connectionPlan);
  let connectionWarmup: ConnectionWarmup;
  try {
    connectionWarmup = await warmConnections(client, connectionPlan, config.load, signal);
  } catch (e) {
    await client.close().catch(() => undefined);
    throw e;
  }
  const warmupNote = describeConnectionWarmup(connectionWarmup);
  if (warmupNote) note(warmupNote);
  clock.reset();
  return {
    clock,
    async run(runPlan, sinks) {
      const headers = new HeadersTally();
      const load = await runPipeline({
        ...localLoad(runPlan),
        send: (item, opts) => client.send(item, opts),
        clock,
        signal: sinks.signal,
        writer: sinks.writer,
        ...(sinks.startAtMs !== undefined ? { startAtMs: sinks.startAtMs } : {}),
        sinks: [(record) => headers.add(record), ...sinks.records],
      });
      const connections = (peakInFlight: number) =>
        connectionUse({
          plan: connectionPlan,
          stats: client.connectionStats(),
          warmup: connectionWarmup,
          peakInFlight,
          headers,
        });
      return { load, connectionWarmup, connections };
    },
    close: () => client.close().catch(() => undefined),
  };
}
