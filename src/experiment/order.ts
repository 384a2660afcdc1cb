/**
 * The run order of an experiment (pure): interleaved (ABC ABC …) so that a drifting service
 * does not favour one configuration, or randomised blocks (each block of one run per
 * configuration shuffled with a seeded generator, the seed recorded so the order can be
 * replayed).
 *
 * @module
 */

import { seededRandom } from '../util/index.js';

/** One slot of the order: which configuration, which of its repeats. */
export interface ScheduledRun {
  configuration: number;
  repeat: number;
}

/**
 * Every run of the experiment, in order: `runs` blocks of one run per configuration.
 *
 * @example
 * runOrder(2, 2, { mode: 'interleaved' }); // A0 B0 A1 B1
 */
export function runOrder(
  configurations: number,
  runs: number,
  order: { mode: 'interleaved' | 'random-blocks'; seed?: number },
): ScheduledRun[] {
  const random = order.mode === 'random-blocks' ? seededRandom(order.seed ?? 0) : undefined;
  const out: ScheduledRun[] = [];
  for (let repeat = 0; repeat < runs; repeat++) {
    const block = Array.from({ length: configurations }, (_, c) => c);
    if (random) {
      for (let i = block.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [block[i], block[j]] = [block[j]!, block[i]!];
      }
    }
    for (const configuration of block) out.push({ configuration, repeat });
  }
  return out;
}
