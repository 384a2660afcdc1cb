/**
 * The closed loop (`--concurrency N`): N users, each sends its next request as soon as its
 * previous one ends, taking items from one counter (shared with other load workers).
 *
 * @module
 */

import type { LoadContext, StrategyResult } from './types.js';

export async function closedLoop(ctx: LoadContext): Promise<StrategyResult> {
  const { clock, stopped } = ctx;
  let sent = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, ctx.load.concurrency ?? 1) }, async () => {
      while (!stopped.aborted) {
        const wait = ctx.backpressure?.();
        if (wait) await clock.outside(wait);
        // Re-check the stop rules: other users went on while this one waited.
        if (stopped.aborted) break;
        const i = ctx.claim();
        if (i === undefined) break;
        sent++;
        await ctx.dispatch(ctx.workItem(i), clock.now());
      }
    }),
  );
  return { sent, dropped: 0, lateSends: 0 };
}
