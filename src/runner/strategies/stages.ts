/**
 * Stages of concurrency (`--stages 30s:10,1m:50`): a closed loop whose users follow the
 * stages' target: as many users as the highest target, and user u sends while the target is
 * above u (a ramp brings users in and out one by one). A load worker or shard runs its part of
 * the users, so the parts together follow the target. (Stages of rate are the open loop on
 * the workload's staged schedule.)
 *
 * @module
 */

import { nextActiveMs, stageWindows } from '../../workload/index.js';
import { userSends } from './closed.js';
import type { LoadContext, StrategyResult } from './types.js';

export async function stagedUsers(ctx: LoadContext): Promise<StrategyResult> {
  const { clock, stopped, measuredStartMs } = ctx;
  const shape = stageWindows(ctx.load.stages ?? []);
  const users = ctx.stageUsers;
  let sent = 0;
  await Promise.all(
    Array.from({ length: users.share(Math.max(1, ...shape.map((w) => Math.ceil(w.to)))) }, async (_, k) => {
      const user = users.position(k);
      while (!stopped.aborted) {
        const at = nextActiveMs(shape, user, clock.now() - measuredStartMs);
        if (!Number.isFinite(at)) break;
        if (!(await clock.sleepUntil(measuredStartMs + at, stopped))) break;
        if (!(await userSends(ctx))) break;
        sent++;
      }
    }),
  );
  return { sent, dropped: 0, lateSends: 0 };
}
