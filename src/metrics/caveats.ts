/**
 * The caveats of a run: what a reader must know before trusting its figures (the client was
 * the bottleneck, connections were short, the server counted prompts differently, the run was
 * cut…), each kind defined once here, so that the run report, the sweep table and its knee
 * and capacity, compare, the ADR and every `--json` say the same thing in the same words.
 *
 * `runCaveats(summary)` is pure and reads only fields a RunSummary already has. To add a kind,
 * add one row to CAVEAT_KINDS: a stable `id` (persisted in sweep.json, compare's and the
 * report's JSON), its severity, how a derived figure names a point that has it ("from a point
 * the client limited"), and `detect`, which returns the sentence for this run or undefined.
 *
 * Severity: `warn` when the figures themselves may be wrong or understate the server (the
 * load asked was not the load sent, the run was cut); `info` when they stand but were counted
 * in a way the reader should know (output tokens counted by the client).
 *
 * @example
 * runCaveats(summary).map((c) => `${c.id}: ${c.text}`);
 * // ['client-bound: the client was the bottleneck (event-loop delay p99 80 ms): …']
 *
 * @module
 */

import type { GcPauses, RunCaveat, RunSummary } from '../types.js';
import { DEFAULT_LATE_SEND_TOLERANCE_MS } from './late-send.js';

/** One caveat of one run: a stable `id` (CAVEAT_KINDS lists them), its severity and its sentence. */
export type Caveat = RunCaveat;
export type CaveatSeverity = RunCaveat['severity'];

/** One kind of caveat: how it is detected and named. */
export interface CaveatKind {
  id: string;
  severity: CaveatSeverity;
  /** Completes "from a point …" where a derived figure (knee, capacity) comes from such a run. */
  point: string;
  /** The sentence for this run, or undefined when the run does not have this caveat. */
  detect: (s: RunSummary) => string | undefined;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

const WARMUP_WHY = {
  budget: (ms: number) => `the server did not answer within ${ms} ms`,
  aborted: () => 'the run was stopped',
  errors: () => 'the warm-up requests failed',
} as const;

/** Mean tokens per prompt, one decimal when it is not whole. */
function perPrompt(total: number, n: number): string {
  const v = total / n;
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

/**
 * The client-warming-up caveat: an open loop's first second (summary.load.startWindow) whose
 * dispatch-lag p99 is late by the run's own measure (over the late-send tolerance) and at least
 * START_LAG_RATIO times the rest's, in a run of at least START_WINDOW_MIN_SENDS sends a second
 * (below that a process's start-up is spread too thin to matter) and twice as long as the
 * window. Measured in fresh processes on 2 cores at 2,000 req/s (first second against the
 * rest): with no warmup 25–31 ms against 1.0–1.7 ms, with 100 requests 6–20 ms, with 0.5 s of
 * the load 3–5 ms, with 2.5 s 2–4 ms, with 5 s 1–2 ms. The advice, WARMUP_ADVICE_S
 * seconds of the load as warmup, clears it with room to spare.
 */
const START_LAG_CAVEAT_MS = DEFAULT_LATE_SEND_TOLERANCE_MS;
const START_LAG_RATIO = 3;
const START_WINDOW_MIN_SENDS = 100;
/** The warmup the client-warming-up caveat advises, in seconds of the load. */
export const WARMUP_ADVICE_S = 2;

/** A GC pause longer than this, or pauses adding up to more than GC_SHARE of the run, is a caveat. */
const GC_PAUSE_CAVEAT_MS = 50;
/**
 * The node flag the GC caveat names when a run's process started without one
 * (`gcPauses.heapFlag`): a fresh process's old generation starts small, and while it is, each
 * scavenge promotes many times what it does later. On 2 cores at 2,000 req/s a fresh run's GC
 * time fell from 136–156 ms to 45–59 ms with it (README, open-loop-pacing). The `goodput`
 * command starts node with it (bin/goodput.js; test/bin.test.ts holds the two the same).
 */
export const GC_HEAP_FLAG = '--initial-old-space-size=64';
/**
 * The other node flag the GC caveat names with GC_HEAP_FLAG: without it V8 may switch the request
 * path's allocation sites to the old generation in a fresh process's first seconds, for good, and
 * the run then pauses 3–4 times as long for GC (bin/goodput.js has the mechanism and the figures;
 * test/bin.test.ts holds the two the same).
 */
export const GC_PRETENURING_FLAG = '--no-allocation-site-pretenuring';
const GC_SHARE_CAVEAT = 0.02;

/**
 * The end of the gc-pauses caveat: what is left to do when the process started with both GC
 * flags, else the flags it started without (the ones to give node).
 */
function gcFlagsHint(gc: GcPauses): string {
  if (gc.heapFlag && gc.pretenuringFlag) {
    return (
      `the process started with a larger heap (${gc.heapFlag}) and ${gc.pretenuringFlag}, so these are the client's own ` +
      'pauses at this load: --workers N spreads the load over threads with heaps of their own where the machine has ' +
      'cores to spare, or run the client on a machine apart from the server'
    );
  }
  const missing = [
    ...(gc.heapFlag ? [] : [{ flag: GC_HEAP_FLAG, what: "node's default heap" }]),
    ...(gc.pretenuringFlag ? [] : [{ flag: GC_PRETENURING_FLAG, what: "V8's allocation-site pretenuring" }]),
  ];
  return (
    `the process started with ${missing.map((m) => `${m.what} (without ${m.flag})`).join(' and ')}, which a fresh ` +
    `process pays most for: the goodput command starts node with ${GC_HEAP_FLAG} ${GC_PRETENURING_FLAG}; started ` +
    `through the library or by node itself, give node ${missing.map((m) => m.flag).join(' ')}`
  );
}

/** The kinds of caveat, most serious first (the order every reader lists them in). */
export const CAVEAT_KINDS: readonly CaveatKind[] = [
  {
    id: 'interrupted',
    severity: 'warn',
    point: 'whose run was interrupted',
    detect: (s) => {
      if (!s.interrupted) return undefined;
      const cut = s.counts.interrupted ?? 0;
      return (
        'the run was interrupted: the figures cover what was measured before the stop' +
        (cut > 0 ? ` (${plural(cut, 'request')} in flight cut, left out of attainment)` : '')
      );
    },
  },
  {
    id: 'no-completions',
    severity: 'warn',
    point: 'where every request failed',
    detect: (s) =>
      s.counts.attempted > 0 && s.counts.completed === 0
        ? 'every measured request failed: there are no latencies to report'
        : undefined,
  },
  {
    id: 'client-bound',
    severity: 'warn',
    point: 'the client limited',
    detect: (s) =>
      s.load.clientBound
        ? `the client was the bottleneck (${s.load.clientBoundReason ?? 'dispatch lag or event-loop delay'}): these numbers may understate the server`
        : undefined,
  },
  {
    id: 'open-files-limit',
    severity: 'warn',
    point: "held below its load by the client's open-file limit",
    detect: (s) => {
      const c = s.load.connections;
      if (c?.openFilesLimit === undefined || c.limit === undefined) return undefined;
      return (
        `the client held at most ${plural(c.limit, 'connection')}: this process's open-file limit ` +
        `(ulimit -n ${c.openFilesLimit}) left room for no more; requests beyond them waited in the client for one, ` +
        `so the server saw at most ${c.limit} at once and the load asked was not the load sent: raise the limit ` +
        'in the shell that starts goodput (ulimit -n) and run again'
      );
    },
  },
  {
    id: 'gc-pauses',
    severity: 'warn',
    point: 'whose client paused for garbage collection',
    detect: (s) => {
      const gc = s.load.gcPauses;
      if (!gc || gc.count === 0) return undefined;
      const share = s.duration > 0 ? gc.totalMs / (s.duration * 1000) : 0;
      if (gc.maxMs <= GC_PAUSE_CAVEAT_MS && share <= GC_SHARE_CAVEAT) return undefined;
      return (
        `the client paused for garbage collection ${plural(gc.count, 'time')} (p99 ${gc.p99Ms.toFixed(1)} ms, ` +
        `longest ${gc.maxMs.toFixed(1)} ms, ${(share * 100).toFixed(1)} % of the run): chunks read during a pause ` +
        "are stamped late by up to its length, so the ITL tail may overstate the server's, and an open loop's " +
        'sends due during one leave late; ' +
        gcFlagsHint(gc)
      );
    },
  },
  {
    id: 'client-warming-up',
    severity: 'warn',
    point: 'whose client was still warming up',
    detect: (s) => {
      const w = s.load.startWindow;
      if (!w || w.sends < START_WINDOW_MIN_SENDS || w.laterSends < w.sends) return undefined;
      if (w.p99Ms <= START_LAG_CAVEAT_MS || w.p99Ms < START_LAG_RATIO * w.laterP99Ms) return undefined;
      const warmup = Math.ceil((WARMUP_ADVICE_S * w.sends * (1000 / w.ms)) / 100) * 100;
      return (
        `the client was still warming up as the measured phase began: its first ${w.ms / 1000} s of sends ` +
        `left with a dispatch lag p99 of ${w.p99Ms.toFixed(1)} ms, against ${w.laterP99Ms.toFixed(1)} ms after it ` +
        '(a fresh process compiles its hot path over its first seconds of load, and runs it slower until then); ' +
        `send about ${WARMUP_ADVICE_S} s of the load first: --warmup ${warmup}`
      );
    },
  },
  {
    id: 'connections-short',
    severity: 'warn',
    point: 'with connections short',
    detect: (s) => {
      const w = s.load.connectionWarmup;
      if (!w?.reason || w.ok >= w.requested) return undefined;
      return (
        `connection warm-up: ${w.ok} of ${w.requested} connections ready (${WARMUP_WHY[w.reason](w.ms)}): ` +
        'the load started on fresh connections, opened as it needed them'
      );
    },
  },
  {
    id: 'server-limited-connections',
    severity: 'warn',
    point: 'where the server limited connections',
    detect: (s) => {
      const c = s.load.connections;
      if (!c?.serverLimited) return undefined;
      return (
        `the server served ${c.peakServed} connections at once while ${s.load.peakInFlight} requests were in flight: ` +
        'requests waited for a connection, not for the GPU, and the latencies include that wait'
      );
    },
  },
  {
    id: 'late-sends',
    severity: 'warn',
    point: 'whose sends were late',
    detect: (s) =>
      s.load.lateSends > 0
        ? `${s.load.lateSends} of ${s.load.dispatchLag.count} open-loop requests were sent late ` +
          `(dispatch lag p99 ${s.load.dispatchLag.p99.toFixed(2)} ms): the load offered was lower than asked`
        : undefined,
  },
  {
    id: 'dropped-sends',
    severity: 'warn',
    point: 'with dropped sends',
    detect: (s) =>
      s.load.dropped > 0
        ? `${plural(s.load.dropped, 'request')} could not be sent at all (dropped): the load offered was lower than asked`
        : undefined,
  },
  {
    id: 'tokenizer-mismatch',
    severity: 'warn',
    point: 'whose prompts the server counted differently',
    detect: (s) => {
      const n = s.counts.promptTokenMismatch;
      if (!(n > 0)) return undefined;
      const st = s.serverTokens;
      const both =
        st && st.requests > 0
          ? `the server counted ${perPrompt(st.inputTokens, st.requests)} tokens per prompt on average ` +
            `against ${perPrompt(st.clientInputTokens, st.requests)} sent (${plural(n, 'prompt')} off by > 1 %)`
          : `${plural(n, 'prompt')} counted differently by the server (> 1 %)`;
      return `${both}: a prompt may have been cut, or the tokenizer differs; input tokens and total tokens/s use the client's count`;
    },
  },
  {
    id: 'usage-missing',
    severity: 'info',
    point: 'with output tokens counted by the client',
    detect: (s) =>
      s.counts.usageMissing > 0
        ? `${plural(s.counts.usageMissing, 'response')} carried no usage: output tokens were counted by the client`
        : undefined,
  },
  {
    id: 'over-limit',
    severity: 'info',
    point: 'where the server ignored max_tokens',
    detect: (s) =>
      s.counts.overLimit
        ? `${plural(s.counts.overLimit, 'response')} longer than the max_tokens asked: the server ignores the output limit`
        : undefined,
  },
  {
    id: 'ended-early',
    severity: 'info',
    point: 'where the server ignored ignore_eos',
    detect: (s) =>
      s.counts.endedEarly
        ? `${plural(s.counts.endedEarly, 'response')} ended before max_tokens although ignore_eos was asked: the server ignores it, output lengths vary`
        : undefined,
  },
];

/** Every caveat of a run, most serious first; [] when its figures stand as they are. */
export function runCaveats(summary: RunSummary): Caveat[] {
  return CAVEAT_KINDS.flatMap((k) => {
    const text = k.detect(summary);
    return text === undefined ? [] : [{ id: k.id, severity: k.severity, text }];
  });
}

/**
 * How a derived figure names the point it came from: "a point the client limited", "a point
 * with connections short and sends late" (several ids), or by id for a kind this version does
 * not know (a newer sweep.json).
 */
export function caveatedPointPhrase(ids: readonly string[]): string {
  const phrases = [...new Set(ids)].map(
    (id) => CAVEAT_KINDS.find((k) => k.id === id)?.point ?? `with caveat ${id}`,
  );
  if (phrases.length === 0) return '';
  return `a point ${phrases.length === 1 ? phrases[0] : `${phrases.slice(0, -1).join(', ')} and ${phrases.at(-1)}`}`;
}
