/**
 * The plan of a run: what this process sends, built once from the config before anything is
 * opened. The workload (`buildRunWorkload`: tokenizer, dataset or trace, prompts, arrivals),
 * the load as run (a trace replay fills in its own), the shard's part of it (`--shard`), and
 * how many load workers share it (`--workers`). Every transport runs a plan; `localLoad` is
 * what a load loop on this thread runs of it.
 *
 * @module
 */

import type { LoadSpec, WorkItem } from '../types.js';
import {
  type AgentSource,
  Part,
  type SessionSource,
  type Tokenizer,
  type Workload,
} from '../workload/index.js';
import type { BenchmarkConfig } from './config.js';
import { buildRunWorkload } from './run-workload.js';
import { shardItem, shardLoad, shardSessions } from './sharding/shard.js';
import { effectiveWorkers } from './workers/count.js';

export interface LoadPlan {
  /** The run's config, its load as run (a trace replay's filled in). */
  config: BenchmarkConfig;
  workload: Workload;
  /** Counted the prompts; counts the replies. */
  tokenizer: Tokenizer;
  /** `--shard i/N`: the run's part this shard stands for. */
  shard: Part | undefined;
  /**
   * True when this process sends only its shard's part (live time). In virtual time a shard's
   * engine serves the whole workload, as a shared server serves every shard, and only the
   * shard's records are kept (sharding/tally.ts).
   */
  split: boolean;
  /** The load this process sends: the run's, or its shard's share. */
  load: LoadSpec;
  /** Load workers (`--workers`): no more than this process's load can keep busy; 1 in virtual time. */
  workers: number;
}

/** The plan of a run against a target (`virtual`: the embedded engine on its simulated clock). */
export async function buildPlan(
  config: BenchmarkConfig,
  virtual: boolean,
  signal?: AbortSignal,
  note?: (text: string) => void,
): Promise<LoadPlan> {
  const built = await buildRunWorkload(config, signal, note);
  const run: BenchmarkConfig = built.load === config.load ? config : { ...config, load: built.load };
  const shard = config.shard === undefined ? undefined : Part.of(config.shard);
  const split = shard !== undefined && !virtual;
  const load = split ? shardLoad(run.load, shard) : run.load;
  return {
    config: run,
    workload: built.workload,
    tokenizer: built.tokenizer,
    shard,
    split,
    load,
    workers: virtual ? 1 : effectiveWorkers(load, config.load.workers ?? 1),
  };
}

/** The config this process runs with: the run's, its load the shard's share. */
export function ownConfig(plan: LoadPlan): BenchmarkConfig {
  return plan.load === plan.config.load ? plan.config : { ...plan.config, load: plan.load };
}

/** What a load loop on this thread sends of the plan: its items, sessions and stage users. */
export function localLoad(plan: LoadPlan): {
  load: LoadSpec;
  workItem: (i: number, cls?: number) => WorkItem;
  sessions?: SessionSource;
  agents?: AgentSource;
  stageUsers?: Part;
  userClass?: (position: number) => number;
} {
  const { workload, shard } = plan;
  const warmup = plan.config.load.warmup;
  const part = plan.split ? shard : undefined;
  const sessions =
    workload.sessions && (part ? shardSessions(workload.sessions, warmup, part) : workload.sessions);
  return {
    load: plan.load,
    workItem: part ? shardItem(workload, warmup, part) : (i, cls) => workload.item(i, cls),
    ...(sessions ? { sessions } : {}),
    ...(workload.agents ? { agents: workload.agents } : {}),
    ...(part ? { stageUsers: part } : {}),
    ...(workload.userClass ? { userClass: workload.userClass } : {}),
  };
}
