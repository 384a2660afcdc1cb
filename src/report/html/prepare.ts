/**
 * Streams a run's records and server samples into small chart series (pure: the caller reads
 * the files and feeds them in). Memory stays bounded for 100,000-request runs: one number per
 * request per latency, a log histogram for ITL, fixed-width time buckets; everything is
 * downsampled before it leaves.
 *
 * @module
 */

import { LatencyHistogram } from '../../metrics/index.js';
// Pure files alone: server-metrics' index loads its scrapers and the HTTP client too.
import { gpuAggregate, gpuKey } from '../../server-metrics/dcgm.js';
import { combineRounds, hasReplicas } from '../../server-metrics/replicas.js';
import type { GpuSample, PromptBucket, RequestRecord, RunSummary, ServerSample } from '../../types.js';
import { lttb, type XY } from './lttb.js';
import type { LatencySamples, RunChartData } from './model.js';
import {
  bucketMedians,
  cdfPoints,
  LogHistogram,
  NumberColumn,
  rangeMedians,
  TimeBuckets,
  thinScatter,
  type XRange,
} from './series.js';

/** Points kept per series after downsampling. */
export const CHART_POINTS = { cdf: 1000, timeline: 800, server: 800, scatter: 2500 };

/**
 * TTFT, TPOT, E2EL and the ITL gaps of one successful request (DESIGN.md's definitions), or
 * undefined for a failed or cancelled one. TTFT and TPOT are absent without a first token.
 */
export function requestLatencies(
  r: RequestRecord,
): { ttft?: number; tpot?: number; e2el: number; itl: number[] } | undefined {
  if (r.outcome !== 'success') return undefined;
  const e2el = r.endMs - r.sentMs;
  const itl: number[] = [];
  for (let i = 1; i < r.chunkMs.length; i++) itl.push(r.chunkMs[i]! - r.chunkMs[i - 1]!);
  if (r.firstTokenMs === undefined) return { e2el, itl };
  const ttft = r.firstTokenMs - r.sentMs;
  if (r.outputTokens <= 1) return { ttft, e2el, itl };
  return { ttft, tpot: (e2el - ttft) / (r.outputTokens - 1), e2el, itl };
}

/**
 * Keeps an evenly spaced subsample of at most `cap` values from a stream of unknown length:
 * when full, every other value is dropped and the stride doubles. Deterministic.
 */
export class StrideSample {
  private kept: number[] = [];
  private stride = 1;
  private seen = 0;

  constructor(private readonly cap = 100_000) {}

  add(v: number): void {
    if (this.seen++ % this.stride !== 0) return;
    this.kept.push(v);
    if (this.kept.length >= this.cap) {
      this.kept = this.kept.filter((_, i) => i % 2 === 0);
      this.stride *= 2;
    }
  }

  sorted(): Float64Array {
    return Float64Array.from(this.kept).sort();
  }
}

/**
 * Picks a timeline bucket width: about 300 buckets over the run, at least 100 ms, so that
 * rates per bucket are not dominated by single tokens.
 */
export function timelineBucketMs(summary: Pick<RunSummary, 'duration'>): number {
  const spanMs = Number.isFinite(summary.duration) && summary.duration > 0 ? summary.duration * 1000 : 60_000;
  return Math.max(100, spanMs / 300);
}

/** Collects one run's records and server samples; `finish()` returns its chart series. */
export class RunChartBuilder {
  private readonly ttft = new NumberColumn();
  private readonly tpot = new NumberColumn();
  private readonly e2el = new NumberColumn();
  private readonly itl = new LogHistogram(1.01);
  private readonly itlSample = new StrideSample();
  private completed = 0;
  private outputSum = 0;
  private outputSumOfSquares = 0;
  private readonly promptTokens = new NumberColumn();
  private readonly inFlight: TimeBuckets;
  private readonly outputTokens: TimeBuckets;
  private readonly errors: TimeBuckets;
  private readonly serverSamples: ServerSample[] = [];
  private readonly gpuSamples: GpuSample[] = [];
  private records = 0;
  private firstSentMs = Number.POSITIVE_INFINITY;

  constructor(
    private readonly summary: RunSummary,
    readonly bucketMs = timelineBucketMs(summary),
  ) {
    this.inFlight = new TimeBuckets(bucketMs);
    this.outputTokens = new TimeBuckets(bucketMs);
    this.errors = new TimeBuckets(bucketMs);
  }

  /** Adds one record (warmup records are skipped, as in the summary). */
  addRecord(r: RequestRecord): void {
    if (r.warmup) return;
    this.records++;
    if (r.sentMs < this.firstSentMs) this.firstSentMs = r.sentMs;
    this.inFlight.addInterval(r.sentMs, r.endMs);
    if (r.outcome === 'error') this.errors.addAt(r.endMs);
    if (r.chunkMs.length > 0 && r.outputTokens > 0) addOutputTokens(this.outputTokens, r);
    const lat = requestLatencies(r);
    if (!lat) return;
    this.completed++;
    this.outputSum += r.outputTokens;
    this.outputSumOfSquares += r.outputTokens * r.outputTokens;
    this.e2el.push(lat.e2el);
    for (const gap of lat.itl) {
      this.itl.add(gap);
      this.itlSample.add(gap);
    }
    if (lat.ttft === undefined) return;
    this.ttft.push(lat.ttft);
    this.promptTokens.push(r.promptTokens);
    if (lat.tpot !== undefined) this.tpot.push(lat.tpot);
  }

  /** The per-request samples, for the comparison's statistics (ITL evenly subsampled to 100k). */
  samples(): LatencySamples {
    return {
      ttft: this.ttft.sorted(),
      tpot: this.tpot.sorted(),
      itl: this.itlSample.sorted(),
      e2el: this.e2el.sorted(),
      completed: this.completed,
      outputTokens: { sum: this.outputSum, sumOfSquares: this.outputSumOfSquares },
    };
  }

  addServerSample(s: ServerSample): void {
    this.serverSamples.push(s);
  }

  addGpuSample(s: GpuSample): void {
    this.gpuSamples.push(s);
  }

  finish(): RunChartData {
    const ttftSorted = this.ttft.sorted();
    const perSecond = 1000 / this.bucketMs;
    // The timeline starts at the first measured send (warmup and engine start-up come before it).
    const first = Number.isFinite(this.firstSentMs) ? Math.floor(this.firstSentMs / this.bucketMs) : 0;
    const series = (values: number[], scale: number): XY => {
      const x: number[] = [];
      const y: number[] = [];
      for (let i = first; i < values.length; i++) {
        x.push(((i + 0.5) * this.bucketMs) / 1000);
        y.push(values[i]! * scale);
      }
      return lttb({ x, y }, CHART_POINTS.timeline);
    };
    const promptXs = this.promptTokens.values();
    const ttftYs = this.ttft.values();
    return {
      cdf:
        this.records > 0
          ? {
              ttft: cdfPoints(ttftSorted, CHART_POINTS.cdf),
              tpot: cdfPoints(this.tpot.sorted(), CHART_POINTS.cdf),
              itl: this.itl.cdf(),
              e2el: cdfPoints(this.e2el.sorted(), CHART_POINTS.cdf),
            }
          : {
              // No requests.jsonl: the summary's mergeable histograms still give the distributions.
              ttft: cdfFromHistogram(this.summary.histograms.ttft),
              tpot: cdfFromHistogram(this.summary.histograms.tpot),
              itl: cdfFromHistogram(this.summary.histograms.itl),
              e2el: cdfFromHistogram(this.summary.histograms.e2el),
            },
      scatter: {
        points: thinScatter(promptXs, ttftYs, CHART_POINTS.scatter),
        medians: this.bucketMediansOf(promptXs, ttftYs),
      },
      timeline: {
        inFlight: series(this.inFlight.totals(), 1),
        outputTokensPerS: series(this.outputTokens.totals(), perSecond),
        errorsPerS: series(this.errors.totals(), perSecond),
        bucketMs: this.bucketMs,
      },
      // Several replicas: the chart draws their totals per scrape round, as the server block does.
      ...(this.serverSamples.length > 0
        ? {
            server: serverSeries(
              hasReplicas(this.serverSamples) ? combineRounds(this.serverSamples) : this.serverSamples,
            ),
          }
        : {}),
      ...(this.gpuSamples.length > 0 ? { gpu: gpuSeries(this.gpuSamples) } : {}),
      recordsRead: this.records,
    };
  }

  /**
   * Medians on the summary's prompt buckets when metrics computed several, else on equal-width
   * buckets; either way from the requests themselves, so each median sits where its bucket's
   * requests are, and empty buckets leave a gap.
   */
  private bucketMediansOf(xs: Float64Array, ys: Float64Array): XY {
    const ranges = promptRanges(this.summary.buckets ?? []);
    return ranges.length > 1 ? rangeMedians(xs, ys, ranges) : bucketMedians(xs, ys, 10);
  }
}

/**
 * A request's output tokens on the timeline as a rate: each chunk's tokens spread evenly over
 * the gap since the chunk before it (the time the server took to make them), the first chunk's
 * at its instant. So a bucket holds the tokens produced during it, not the tokens whose chunk
 * happened to land in it: with few tokens per bucket or chunks that carry several tokens, the
 * per-instant count swings between 0 and a peak from one bucket to the next while the rate does not.
 */
export function addOutputTokens(
  buckets: TimeBuckets,
  r: Pick<RequestRecord, 'chunkMs' | 'outputTokens'>,
): void {
  const perChunk = r.outputTokens / r.chunkMs.length;
  buckets.addAt(r.chunkMs[0]!, perChunk);
  for (let k = 1; k < r.chunkMs.length; k++) buckets.addSpread(r.chunkMs[k - 1]!, r.chunkMs[k]!, perChunk);
}

/** The summary's prompt-length buckets as x ranges, ascending (overlaps dropped). */
export function promptRanges(
  buckets: ReadonlyArray<Pick<PromptBucket, 'minTokens' | 'maxTokens'>>,
): XRange[] {
  const out: XRange[] = [];
  for (const b of buckets.slice().sort((p, q) => p.minTokens - q.minTokens)) {
    if (!(b.maxTokens > b.minTokens)) continue;
    if (out.length > 0 && b.minTokens < out[out.length - 1]![1]) continue;
    out.push([b.minTokens, b.maxTokens]);
  }
  return out;
}

/** Percentiles at which a CDF is read from a histogram: every 0.5% plus a dense tail. */
const HISTOGRAM_CDF_PERCENTILES = [
  0.1,
  ...Array.from({ length: 199 }, (_, i) => (i + 1) / 2),
  99.6,
  99.7,
  99.8,
  99.9,
  99.95,
  99.99,
  100,
];

/**
 * CDF points from a summary's encoded latency histogram (HdrHistogram, as the metrics module
 * writes it), for runs whose records are not at hand. Empty when there is no histogram.
 */
export function cdfFromHistogram(encoded: string | undefined): XY {
  if (!encoded) return { x: [], y: [] };
  let hist: LatencyHistogram;
  try {
    hist = LatencyHistogram.decode(encoded);
  } catch {
    return { x: [], y: [] };
  }
  if (hist.count === 0) return { x: [], y: [] };
  return {
    x: HISTOGRAM_CDF_PERCENTILES.map((p) => hist.percentile(p)),
    y: HISTOGRAM_CDF_PERCENTILES.slice(),
  };
}

/** The server's running / waiting / KV usage (%) / preemptions per scrape interval, downsampled. */
export function serverSeries(samples: ServerSample[]): NonNullable<RunChartData['server']> {
  const sorted = samples.slice().sort((a, b) => a.tMs - b.tMs);
  const pick = (name: 'running' | 'waiting' | 'kvUsage', scale = 1): XY => {
    const x: number[] = [];
    const y: number[] = [];
    for (const s of sorted) {
      const v = s.values[name];
      if (v === undefined || !Number.isFinite(v)) continue;
      x.push(s.tMs / 1000);
      y.push(v * scale);
    }
    return lttb({ x, y }, CHART_POINTS.server);
  };
  // vLLM reports KV usage as a fraction 0..1; some engines as a percentage.
  const kvMax = Math.max(0, ...sorted.map((s) => s.values.kvUsage ?? 0));
  const preemptions: XY = { x: [], y: [] };
  let previous: number | undefined;
  for (const s of sorted) {
    const total = s.values.preemptionsTotal;
    if (total === undefined || !Number.isFinite(total)) continue;
    preemptions.x.push(s.tMs / 1000);
    // A counter reset (server restart) counts from zero again.
    preemptions.y.push(previous === undefined ? 0 : total >= previous ? total - previous : total);
    previous = total;
  }
  return {
    running: pick('running'),
    waiting: pick('waiting'),
    kvUsagePct: pick('kvUsage', kvMax <= 1 ? 100 : 1),
    // Downsampling keeps peaks, which is what preemption bursts are.
    preemptions: lttb(preemptions, CHART_POINTS.server),
  };
}

/**
 * The GPUs per scrape, downsampled: utilisation % and power W taken together as the summary
 * takes them (gpuAggregate: mean utilisation, total power), and each GPU's utilisation.
 */
export function gpuSeries(samples: GpuSample[]): NonNullable<RunChartData['gpu']> {
  const sorted = samples.slice().sort((a, b) => a.tMs - b.tMs);
  const util: XY = { x: [], y: [] };
  const power: XY = { x: [], y: [] };
  const perGpu = new Map<string, { gpu: string; data: XY }>();
  for (const s of sorted) {
    const t = s.tMs / 1000;
    const all = gpuAggregate(s.gpus);
    if (all.utilPct !== undefined) {
      util.x.push(t);
      util.y.push(all.utilPct);
    }
    if (all.powerW !== undefined) {
      power.x.push(t);
      power.y.push(all.powerW);
    }
    for (const g of s.gpus) {
      const v = g.values.utilPct;
      if (v === undefined) continue;
      const key = gpuKey(g);
      let line = perGpu.get(key);
      if (!line) {
        line = { gpu: g.hostname ? `${g.hostname}:${g.gpu}` : g.gpu, data: { x: [], y: [] } };
        perGpu.set(key, line);
      }
      line.data.x.push(t);
      line.data.y.push(v);
    }
  }
  return {
    utilPct: lttb(util, CHART_POINTS.server),
    powerW: lttb(power, CHART_POINTS.server),
    // One GPU: its line is the mean's.
    perGpuUtilPct:
      perGpu.size > 1
        ? [...perGpu.values()].map((l) => ({ gpu: l.gpu, data: lttb(l.data, CHART_POINTS.server) }))
        : [],
  };
}
