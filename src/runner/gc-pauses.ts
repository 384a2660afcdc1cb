/**
 * Garbage-collection pauses of the load thread while the measured load runs, for the client
 * self-check. A pause stops the event loop: every chunk that arrives during it is read, and
 * stamped, up to the pause late, so a long one shows as an ITL outlier the server never made.
 * Counted from perf_hooks `gc` entries (scavenges, mark-compacts, incremental steps): Node
 * makes each entry in an immediate after its pause, so `stop()` waits one turn of the event
 * loop for the last ones before it takes what is still queued.
 *
 * @module
 */

import { PerformanceObserver } from 'node:perf_hooks';
import { LatencyHistogram } from '../metrics/index.js';
import type { GcPauses } from '../types.js';

/** A running count of this thread's GC pauses; `stop()` ends it and returns the figures. */
interface GcPauseWatch {
  stop(): Promise<GcPauses>;
}

/** Start counting this thread's GC pauses. */
export function watchGcPauses(): GcPauseWatch {
  const pauses = new LatencyHistogram();
  let totalMs = 0;
  let maxMs = 0;
  const add = (list: { getEntries(): ReadonlyArray<{ duration: number }> }) => {
    for (const entry of list.getEntries()) {
      pauses.record(entry.duration);
      totalMs += entry.duration;
      if (entry.duration > maxMs) maxMs = entry.duration;
    }
  };
  const observer = new PerformanceObserver(add);
  observer.observe({ entryTypes: ['gc'] });
  return {
    async stop() {
      await new Promise((resolve) => setImmediate(resolve));
      add({ getEntries: () => observer.takeRecords() });
      observer.disconnect();
      const gc = gcPausesOf(pauses.count, totalMs, pauses.count > 0 ? pauses.percentile(99) : 0, maxMs);
      const heapFlag = heapFlagOf(process.execArgv);
      const pretenuringFlag = pretenuringFlagOf(process.execArgv);
      return { ...gc, ...(heapFlag ? { heapFlag } : {}), ...(pretenuringFlag ? { pretenuringFlag } : {}) };
    },
  };
}

/** V8's options that size the heap a process starts with, in either spelling (`-` or `_`). */
const HEAP_START_OPTION = /^--initial[-_](old[-_]space|heap)[-_]size=\d+$/;

/**
 * The option of node's command line (`process.execArgv`) that started the heap larger than
 * V8's default, if any (the last one, as V8 reads them).
 *
 * @example
 * heapFlagOf(['--initial-old-space-size=64', '/usr/lib/node_modules/goodput/bin/goodput.js']);
 * // → '--initial-old-space-size=64'
 */
export function heapFlagOf(execArgv: readonly string[]): string | undefined {
  let flag: string | undefined;
  for (const arg of execArgv) if (HEAP_START_OPTION.test(arg)) flag = arg;
  return flag;
}

/** V8's option for allocation-site pretenuring, on or off, in either spelling (`-` or `_`). */
const PRETENURING_OPTION = /^--(no[-_])?allocation[-_]site[-_]pretenuring$/;

/**
 * The option of node's command line that turned V8's allocation-site pretenuring off, if the
 * last one of them did (as V8 reads them).
 *
 * @example
 * pretenuringFlagOf(['--initial-old-space-size=64', '--no-allocation-site-pretenuring', '/x/goodput.js']);
 * // → '--no-allocation-site-pretenuring'
 */
export function pretenuringFlagOf(execArgv: readonly string[]): string | undefined {
  let flag: string | undefined;
  for (const arg of execArgv) {
    const m = PRETENURING_OPTION.exec(arg);
    if (m) flag = m[1] ? arg : undefined;
  }
  return flag;
}

const ms3 = (x: number) => Math.round(x * 1000) / 1000;

/** The figures, rounded to microseconds. */
export function gcPausesOf(count: number, totalMs: number, p99Ms: number, maxMs: number): GcPauses {
  return { count, totalMs: ms3(totalMs), p99Ms: ms3(p99Ms), maxMs: ms3(maxMs) };
}
