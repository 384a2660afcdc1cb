/**
 * Noise floors of compare with one run a side. A within-run interval (bootstrap, rank test,
 * rate ratio) sees only the requests of each run; two runs of the same configuration also
 * differ by what changed between them (the machine's load, the clock's phase, which prompts
 * the seed drew), and a within-run test calls that a change. The floor is the size of change
 * that A/A reruns reach on their own: a change under it is "no significant change", whatever
 * the within-run test says, and the row says how many runs a side would resolve it.
 *
 * How the numbers were measured: `node scripts/calibrate-noise-floor.mjs` (after `npm run build`):
 * A/A pairs of `goodput run`'s default load on the embedded engine, live (closed loop of 8, 80
 * requests, 256-token prompts, up to 128 output tokens), each run with a seed of its own and a
 * fresh engine, the two runs of a pair one after the other as a user reruns. 32 pairs (20 + 12,
 * 2026-12-03) on a 2-core machine shared with other work (load average 15–19): the median
 * |change| of a pair was TTFT p50 12 %, TTFT p99 27 %, TPOT p50 6.5 %, TPOT p99 35 %, ITL p99 30 %,
 * E2EL p99 14 %, request throughput 14 %, output throughput 10 %; their 95th percentiles about
 * four times that (a busy moment of the machine hits one run of a pair). In virtual time (the
 * seed's draws alone, no machine) the largest changes of 20 pairs were 0.6 % (TPOT p50), 16 %
 * (TPOT p99), 17.5 % (request throughput: the drawn output lengths set a closed loop's pace) and
 * under 2 % elsewhere.
 *
 * `runSpread` is one run's spread estimated from those pairs (median |change| / 0.954, the
 * median of |N(0, 2σ²)|); `floor` is 2.5 × the median |change|, rounded to the nearest 5 %. That keeps
 * an A/A pair of a quiet machine (and every virtual-time pair) inside the floors while a 20 %
 * slower decode is still seen on TPOT p50. On a machine as loaded as the one measured, A/A pairs
 * still cross a floor: 4 of 10 in a later check, by 30–250 % (a stall of the machine during one
 * run of the pair), which no floor a one-run compare could use covers. Replicates measure the
 * drift itself and need no floor: `goodput compare A1,A2,A3 B1,B2,B3`. Tail percentiles (one or two requests of 80–100)
 * drift far more than medians; throughput follows the drawn output lengths.
 *
 * @module
 */

/** One row's noise: its per-run spread and the floor derived from it. */
export interface NoiseFloor {
  /** Per-run spread in A/A reruns: the CV of the figure (relative rows) or its std in points (proportions). */
  runSpread: number;
  /** |change| (relative, or points for proportions) under which a one-run-a-side verdict is withheld. */
  floor: number;
}

const TTFT_P50: NoiseFloor = { runSpread: 0.13, floor: 0.3 };
const TTFT_P99: NoiseFloor = { runSpread: 0.28, floor: 0.7 };

/** The one table of floors, per compare row (catalogue id); see the module comment for how they were measured. */
export const NOISE_FLOORS: Readonly<Record<string, NoiseFloor>> = {
  ttft_p50: TTFT_P50,
  ttft_p99: TTFT_P99,
  tpot_p50: { runSpread: 0.068, floor: 0.15 },
  tpot_p99: { runSpread: 0.37, floor: 0.9 },
  itl_p99: { runSpread: 0.31, floor: 0.75 },
  e2el_p99: { runSpread: 0.15, floor: 0.35 },
  request_throughput: { runSpread: 0.15, floor: 0.35 },
  output_throughput: { runSpread: 0.105, floor: 0.25 },
  request_goodput: { runSpread: 0.15, floor: 0.35 },
  // Attainment moves with latency drift as far as the SLO sits near the latencies: a judgement,
  // not a measurement (the default run has no SLO). Error rate: A/A runs of the engine have none,
  // and Newcombe's interval already holds the binomial noise of rare independent failures.
  attainment: { runSpread: 0.02, floor: 0.05 },
  error_rate: { runSpread: 0, floor: 0 },
  goodput_ratio: { runSpread: 0, floor: 0.05 },
  // Reasoning phases: as TTFT (the same queueing and prefill before them).
  ttfrt_p50: TTFT_P50,
  ttfrt_p99: TTFT_P99,
  ttfat_p50: TTFT_P50,
  ttfat_p99: TTFT_P99,
};

/** The floor of a row not in the table (one figure per run, never tested within a run). */
const UNLISTED: NoiseFloor = { runSpread: 0.05, floor: 0.05 };

/** A row's noise floor. */
export function noiseFloorOf(key: string): NoiseFloor {
  return NOISE_FLOORS[key] ?? UNLISTED;
}
