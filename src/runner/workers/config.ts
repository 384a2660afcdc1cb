/**
 * `--workers` checked against the rest of a run's config: virtual time refuses more than one.
 *
 * @module
 */

import { GoodputError } from '../../errors.js';
import type { BenchmarkConfig } from '../config.js';

/**
 * Refuses `--workers` above 1 with `--time virtual` (the load runs in process on the engine's
 * simulated clock, where a second thread would measure nothing). Called before anything is sent.
 * (Multi-turn sessions and stages split across workers: share.ts.)
 */
export function checkWorkers(config: BenchmarkConfig): void {
  const asked = config.load.workers ?? 1;
  if (asked > 1 && config.sim?.timeMode === 'virtual' && config.url === undefined) {
    throw new GoodputError(
      'E_USAGE',
      `--workers ${asked} cannot be used with --time virtual`,
      'drop --workers: virtual time runs the load in process on the engine’s simulated clock, where the client costs nothing',
    );
  }
}
