/**
 * The closed loop (`--concurrency N`): N users, each sends its next request as soon as its
 * previous one ends, taking items from one counter (shared with other load workers). With
 * traffic classes each user is of one class (`userClass`) and sends only its class's requests.
 *
 * @module
 */

import type { LoadContext, StrategyResult } from './types.js';

export async function closedLoop(ctx: LoadContext): Promise<StrategyResult> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, ctx.load.concurrency ?? 1) }, async (_, user) => {
      const cls = ctx.userClass?.(user);
      while (!ctx.stopped.aborted && (await userSends(ctx, cls))) sent++;
    }),
  );
  return { sent, dropped: 0, lateSends: 0 };
}

/**
 * One user's next request (the closed loop's, and a stage user's once its stage lets it):
 * waits out the back-pressure, re-checks the stop rules (other users went on while this one
 * waited), claims the next item and sends it (as a request of class `cls`, when given). False
 * when there is nothing more to send.
 */
export async function userSends(ctx: LoadContext, cls?: number): Promise<boolean> {
  const wait = ctx.backpressure?.();
  if (wait) await ctx.clock.outside(wait);
  if (ctx.stopped.aborted) return false;
  const i = ctx.claim();
  if (i === undefined) return false;
  await ctx.dispatch(ctx.workItem(i, cls), ctx.clock.now());
  return true;
}
