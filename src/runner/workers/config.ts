/**
 * `--workers` checked against the rest of a run's config: virtual time and multi-turn sessions
 * refuse more than one.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import type { LoadSpec } from '../../types.js';
import type { BenchmarkConfig } from '../config.js';

/**
 * Refuses `--workers` above 1 with `--time virtual` (the load runs in process on the engine's
 * simulated clock, where a second thread would measure nothing) and with multi-turn sessions
 * (`load`: the run's, once its workload is known). Called before anything is sent.
 */
export function checkWorkers(config: BenchmarkConfig, load: LoadSpec = config.load): void {
  const asked = config.load.workers ?? 1;
  if (asked > 1 && load.sessions !== undefined) {
    throw new GoodputError(
      'E_USAGE',
      `--workers ${asked} cannot be used with multi-turn sessions yet (a session's turns must stay on one worker)`,
      'drop --workers: one worker drives thousands of sessions; for more, run shards (--shard i/N) as separate processes',
    );
  }
  if (asked > 1 && config.sim?.timeMode === 'virtual' && config.url === undefined) {
    throw new GoodputError(
      'E_USAGE',
      `--workers ${asked} cannot be used with --time virtual`,
      'drop --workers: virtual time runs the load in process on the engine’s simulated clock, where the client costs nothing',
    );
  }
}
