/**
 * Rebuilding a run's summary from its records: a run killed with SIGKILL (or a crash, or a
 * power cut) leaves requests.jsonl, streamed as it went, but no summary.json. The header line
 * of requests.jsonl carries the run's meta and accumulator settings, so the same accumulator
 * the run would have used turns the records back into a RunSummary; server-metrics.jsonl, when
 * present, gives the server block. Used by `goodput summarize`.
 *
 * What the records cannot tell, and is therefore left out: sends the runner dropped, its own
 * client self-check verdict beyond late sends, and the connection warm-up. The client's GC
 * pauses are not in the records either: a rebuild that replaces a summary.json (`--force`)
 * carries them over from it, since they were measured once, by the run.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { diagnose } from '../diagnosis/index.js';
import { GoodputError } from '../errors.js';
import { efficiencyOf, RunAccumulator } from '../metrics/index.js';
import {
  type JsonlHeader,
  type RunPaths,
  readGpuSamples,
  readRecords,
  readServerSamples,
  readSummary,
  runPaths,
} from '../results/index.js';
import {
  ClientViewBuilder,
  measuredServerGeneratedTokens,
  summarizeGpu,
  summarizeSamples,
} from '../server-metrics/index.js';
import type { GpuSample, GpuSummary, RequestRecord, RunSummary, ServerSample } from '../types.js';
import { createRng } from '../workload/index.js';
import { ObservationSample } from './observation-sample.js';
import { MAX_DIAGNOSIS_OBSERVATIONS } from './recording.js';

export interface RebuildOptions {
  /** Skip damaged lines in the middle of requests.jsonl (each is still reported). Default: refuse. */
  skipCorrupt?: boolean;
}

export interface RebuiltRun {
  summary: RunSummary;
  /** Records read (warmup included). */
  records: number;
  /** Damaged lines in the middle of requests.jsonl that were skipped (only with skipCorrupt). */
  corruptLines: number[];
  /** The last line of requests.jsonl, cut off mid-write (the kill), when it was. */
  tornLine?: number;
  /** What the user should know about the rebuilt summary. */
  notes: string[];
}

/** Highest number of measured requests in flight at once, from their send and end times. */
function peakInFlight(sent: number[], ended: number[]): number {
  sent.sort((a, b) => a - b);
  ended.sort((a, b) => a - b);
  let i = 0;
  let j = 0;
  let now = 0;
  let peak = 0;
  while (i < sent.length) {
    // an end at the same instant as a send frees its slot first
    if (j < ended.length && ended[j]! <= sent[i]!) {
      now--;
      j++;
    } else {
      now++;
      i++;
      if (now > peak) peak = now;
    }
  }
  return peak;
}

/**
 * Reads DIR/requests.jsonl (and DIR/server-metrics.jsonl) and returns the summary the run
 * would have written. Throws E_RESULT when the file has no run header (written by an older
 * goodput or by merge) or is damaged in the middle (unless skipCorrupt), naming the lines.
 */
export async function rebuildSummary(dirOrSummary: string, opts: RebuildOptions = {}): Promise<RebuiltRun> {
  const paths = runPaths(dirOrSummary);
  if (!existsSync(paths.requests)) {
    throw new GoodputError(
      'E_RESULT',
      `no records at ${paths.requests}: there is nothing to rebuild a summary from`,
      'pass a result directory written by goodput run --out DIR',
    );
  }
  const notes: string[] = [];
  const samples = await readSamples(paths, notes);
  const folded = await foldRecords(paths, samples);
  const { header, corruptLines, tornLine, client, sent, ended, count, lastEndMs } = folded;
  const info = header?.run;
  if (!info) throw noRunHeader(paths.requests);
  if (corruptLines.length > 0 && !opts.skipCorrupt) {
    throw new GoodputError(
      'E_RESULT',
      `${paths.requests} is damaged in the middle: line${corruptLines.length > 1 ? 's' : ''} ${corruptLines.join(', ')} ${corruptLines.length > 1 ? 'are' : 'is'} not valid JSON`,
      `repair or delete ${corruptLines.length > 1 ? 'those lines' : 'that line'}, or rebuild from the other ${count} records with goodput summarize ${paths.dir} --skip-corrupt`,
    );
  }
  const acc =
    folded.acc ?? RunAccumulator.fromMeta(info.meta, { lateSendToleranceMs: info.lateSendToleranceMs });
  const meta = info.meta;
  const load = meta.load;
  // Complete when the records reach the run's own stop rule; a killed run stopped short of it.
  const measured = sent.length;
  const complete =
    load.requests !== undefined
      ? measured >= load.requests
      : load.durationMs !== undefined && lastEndMs >= load.durationMs;

  let server: RunSummary['server'];
  if (samples.length > 0) {
    server = summarizeSamples(samples, {
      metricsUrl: info.metricsUrl ?? 'unknown',
      records: client.build(),
    });
  }
  const gpu = await rebuildGpu(paths, info.gpuMetricsUrl, notes);
  if (gpu) server = { ...(server ?? { engine: 'unknown', metricsUrl: '', samples: 0, series: {} }), gpu };
  const { gcPauses, startWindow } = (await measuredSelfCheck(paths)) ?? {};
  const summary = acc.summarize(meta, {
    ...(gcPauses ? { gcPauses } : {}),
    ...(startWindow ? { startWindow } : {}),
    peakInFlight: peakInFlight(sent, ended),
    interrupted: !complete,
    ...(server
      ? { server, serverGeneratedTokens: measuredServerGeneratedTokens(server, client.build()) }
      : {}),
  });
  const efficiency = efficiencyOf(summary, info.efficiency ?? {});
  if (efficiency) summary.efficiency = efficiency;
  const findings = diagnose({ observations: folded.observations?.items() ?? [], samples, summary });
  if (findings.length > 0) summary.diagnosis = findings;
  notes.push(
    ...rebuildNotes(folded, complete, meta.target.timeMode === 'virtual', {
      gc: gcPauses !== undefined,
      startWindow: startWindow !== undefined,
    }),
  );
  return { summary, records: count, corruptLines, ...(tornLine !== undefined ? { tornLine } : {}), notes };
}

/** The server samples beside the records (none when the run scraped none); damaged lines skipped with a note. */
async function readSamples(paths: ReturnType<typeof runPaths>, notes: string[]): Promise<ServerSample[]> {
  const samples: ServerSample[] = [];
  if (!existsSync(paths.serverMetrics)) return samples;
  for await (const s of readServerSamples(paths.dir, {
    onCorrupt: (n) => notes.push(`${paths.serverMetrics} line ${n} is damaged: skipped`),
  })) {
    samples.push(s);
  }
  return samples;
}

/** What one pass over requests.jsonl gathers: the accumulator, the client's view, send and end times. */
interface FoldedRecords {
  header: JsonlHeader | undefined;
  corruptLines: number[];
  tornLine: number | undefined;
  acc: RunAccumulator | undefined;
  client: ClientViewBuilder;
  sent: number[];
  ended: number[];
  count: number;
  lastEndMs: number;
  observations: ObservationSample | undefined;
}

/** Reads the records once, into the accumulator set up from the header's run meta. */
async function foldRecords(
  paths: ReturnType<typeof runPaths>,
  samples: ServerSample[],
): Promise<FoldedRecords> {
  const out: FoldedRecords = {
    header: undefined,
    corruptLines: [],
    tornLine: undefined,
    acc: undefined,
    client: new ClientViewBuilder(samples),
    sent: [],
    ended: [],
    count: 0,
    lastEndMs: 0,
    observations: undefined,
  };
  const records = readRecords(paths.dir, {
    onHeader: (h) => {
      out.header = h;
    },
    onCorrupt: (n) => out.corruptLines.push(n),
    onTornTail: (n) => {
      out.tornLine = n;
    },
  });
  for await (const record of records as AsyncIterable<RequestRecord>) {
    if (!out.acc) {
      const info = out.header?.run;
      if (!info) throw noRunHeader(paths.requests);
      out.acc = RunAccumulator.fromMeta(info.meta, {
        lateSendToleranceMs: info.lateSendToleranceMs,
        ...(info.promptBuckets !== undefined ? { promptBuckets: info.promptBuckets } : {}),
      });
      const rng = createRng(info.meta.seed).fork('diagnosis');
      out.observations = new ObservationSample(MAX_DIAGNOSIS_OBSERVATIONS, () => rng.next());
    }
    out.count++;
    out.acc.add(record);
    out.client.add(record);
    if (!record.warmup) {
      out.sent.push(record.firstSentMs ?? record.sentMs);
      out.ended.push(record.endMs);
      out.lastEndMs = Math.max(out.lastEndMs, record.endMs);
      out.observations!.offer(record);
    }
  }
  return out;
}

/** What the rebuilt summary could not see, in words. */
function rebuildNotes(
  folded: FoldedRecords,
  complete: boolean,
  virtual: boolean,
  carried: { gc: boolean; startWindow: boolean },
): string[] {
  const notes: string[] = [];
  const { tornLine, corruptLines } = folded;
  if (tornLine !== undefined) {
    notes.push(`the last line (${tornLine}) was cut off mid-write, as a killed run leaves it: ignored`);
  }
  if (corruptLines.length > 0) {
    notes.push(`skipped damaged line${corruptLines.length > 1 ? 's' : ''} ${corruptLines.join(', ')}`);
  }
  if (!complete) notes.push("the records stop short of the run's stop rule: marked interrupted");
  if (carried.gc) {
    notes.push(
      "not in the records, left out: dropped sends and the connection warm-up; the client's GC pauses are carried over from the summary.json this replaces" +
        (carried.startWindow ? ", and so is the open loop's start window" : ''),
    );
  } else {
    // Virtual time measures no GC pauses at all.
    notes.push(
      `not in the records, left out: dropped sends${virtual ? '' : ", the client's GC pauses"} and the connection warm-up`,
    );
  }
  if (virtual) {
    notes.push(
      "the virtual engine's counters (the server block) are not in the records: token goodput is counted by the client",
    );
  }
  return notes;
}

/**
 * The client self-check the run measured and its records do not hold (its GC pauses, an open
 * loop's start window), from the summary.json a rebuild replaces; undefined when there is none
 * or it cannot be read.
 */
async function measuredSelfCheck(
  paths: RunPaths,
): Promise<Pick<RunSummary['load'], 'gcPauses' | 'startWindow'> | undefined> {
  if (!existsSync(paths.summary)) return undefined;
  try {
    const { gcPauses, startWindow } = (await readSummary(paths.summary)).load;
    return { ...(gcPauses ? { gcPauses } : {}), ...(startWindow ? { startWindow } : {}) };
  } catch {
    return undefined; // a damaged summary is what the rebuild replaces
  }
}

function noRunHeader(path: string): GoodputError {
  return new GoodputError(
    'E_RESULT',
    `${path} has no run meta in its header line (written by an older goodput, or by merge): its summary cannot be rebuilt`,
    'run the benchmark again with this version of goodput',
  );
}

/** The GPU figures from gpu-metrics.jsonl, when the run kept it and a scrape succeeded. */
async function rebuildGpu(
  paths: RunPaths,
  url: string | undefined,
  notes: string[],
): Promise<GpuSummary | undefined> {
  if (!existsSync(paths.gpuMetrics)) return undefined;
  const samples: GpuSample[] = [];
  for await (const s of readGpuSamples(paths.dir, {
    onCorrupt: (n) => notes.push(`${paths.gpuMetrics} line ${n} is damaged: skipped`),
  })) {
    samples.push(s);
  }
  return samples.length > 0 ? summarizeGpu(samples, { metricsUrl: url ?? 'unknown' }) : undefined;
}
