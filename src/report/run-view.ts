/**
 * What a run's report says, decided once: which rows, which warnings, which notes, as
 * strings ready to print. The terminal and Markdown renderers only lay this out, so they
 * always say the same thing.
 *
 * @module
 */

import { REQUEST_ERRORS } from '../errors.js';
import {
  LATENCIES,
  latencyLabel,
  metric,
  outputLimitText,
  runCaveats,
  traceSendsText,
} from '../metrics/index.js';
import type { LatencyStats, RunSummary, ServerSeriesName, Slo, SloName } from '../types.js';
import { agentsView } from './agents-view.js';
import { classesView } from './classes-view.js';
import { efficiencyLines } from './efficiency-view.js';
import { fmtInt, fmtMs, fmtNum, fmtPct, fmtTokenRange } from './format.js';
import { gpuNotes, gpuRows } from './gpu-view.js';
import { buildReplicasView, type ReplicasView } from './replicas-view.js';
import { serverFacts } from './server-facts.js';
import { describeSessions, sessionLoadShape, turnsView } from './turns-view.js';

/** A header and rows of cells (strings), with the alignment of each column. */
export interface ViewTable {
  header: string[];
  rows: string[][];
  align: Array<'l' | 'r'>;
}

export interface ErrorView {
  code: string;
  count: string;
  httpStatus?: string;
  example: string;
  cause: string;
  fix: string;
}

/** Everything a run report shows, already formatted. */
export interface RunView {
  title: string;
  /** Label / value lines describing what was run. */
  context: Array<[string, string]>;
  latency: ViewTable;
  throughput: Array<[string, string]>;
  /** SLOs in words, e.g. "TTFT ≤ 500 ms, TPOT ≤ 100 ms" or "none set". */
  sloText: string;
  goodput: Array<[string, string]>;
  /** Energy and cost per token (empty when the run has neither). */
  efficiency: Array<[string, string]>;
  counts: Array<[string, string]>;
  load: Array<[string, string]>;
  errors: ErrorView[];
  warnings: string[];
  server?: { title: string; table: ViewTable; notes: Array<[string, string]> };
  buckets?: ViewTable;
  /** Several replicas: one row each and the totals (replicas-view.ts). */
  replicas?: ReplicasView;
  /** Multi-turn sessions: TTFT and prompt tokens by turn, beside the prefix-cache hit rate. */
  turns?: { table: ViewTable; notes: Array<[string, string]> };
  /** Agent runs: figures by step kind and by run (agents-view.ts). */
  agents?: { table: ViewTable; notes: Array<[string, string]> };
  /** Traffic classes: each class's figures against its own SLO (classes-view.ts). */
  classes?: ViewTable;
}

const SERVER_LABELS: Array<[ServerSeriesName, string]> = [
  ['running', 'running'],
  ['waiting', 'waiting'],
  ['kvUsage', 'KV usage'],
  ['kvFragmentation', 'KV fragmentation'],
];

function latencyRow(label: string, s: LatencyStats): string[] {
  return [label, fmtInt(s.count), ...[s.mean, s.p50, s.p90, s.p95, s.p99, s.p999, s.max].map(fmtMs)];
}

/** SLOs in words. */
export function describeSloText(slo: Slo): string {
  const parts: string[] = [];
  if (slo.ttftMs !== undefined) parts.push(`${latencyLabel('ttft')} ≤ ${slo.ttftMs} ms`);
  if (slo.tpotMs !== undefined) parts.push(`${latencyLabel('tpot')} ≤ ${slo.tpotMs} ms`);
  if (slo.e2elMs !== undefined) parts.push(`${latencyLabel('e2el')} ≤ ${slo.e2elMs} ms`);
  if (slo.userTps !== undefined) parts.push(`user output ≥ ${slo.userTps} tok/s`);
  return parts.length > 0 ? parts.join(', ') : 'none set (every success counts as good)';
}

function describeLoad(s: RunSummary): string {
  const l = s.meta.load;
  const stop =
    l.requests !== undefined
      ? `${l.requests} requests`
      : l.durationMs !== undefined
        ? `${l.durationMs / 1000} s`
        : '';
  const shape =
    (l.stages
      ? `stages of ${l.stagesOf ?? 'concurrency'} ${l.stages.map((st) => `${st.durationMs / 1000}s:${st.target}`).join(',')}`
      : undefined) ??
    sessionLoadShape(l) ??
    traceSendsText(s.meta) ??
    (l.mode === 'closed'
      ? `closed loop, concurrency ${l.concurrency ?? 1}`
      : // null is how summary.json writes Infinity (--rate inf)
        (l.rate == null || l.rate === Number.POSITIVE_INFINITY
          ? 'open loop, all at once (--rate inf)'
          : `open loop, ${l.rate} req/s, burstiness ${l.burstiness ?? 1}`) +
        (l.maxConcurrency !== undefined ? `, max concurrency ${l.maxConcurrency}` : ''));
  const c = l.connections;
  const connections =
    c === undefined || (c.mode === 'pooled' && c.limit === undefined)
      ? undefined
      : `connections ${c.mode}${c.limit !== undefined ? `:${c.limit}` : ''}`;
  return [shape, stop, `warmup ${l.warmup}`, connections].filter(Boolean).join(' · ');
}

function describeWorkload(s: RunSummary): string {
  const w = s.meta.workload;
  const prompt =
    w.kind === 'trace'
      ? `trace ${w.trace?.path ?? ''} (${w.trace?.format ?? ''}, ${w.trace?.entries ?? 0} requests, times × ${w.trace?.timeScale ?? 1})`
      : w.kind === 'dataset'
        ? `dataset ${w.dataset?.path ?? ''} (${w.dataset?.entries ?? 0} entries)`
        : `prompt ${w.promptTokens ?? 0} tokens` +
          (w.promptTokensRange ? ` ±${w.promptTokensRange * 100} %` : '') +
          (w.systemPromptTokens ? ` + shared system prompt ${w.systemPromptTokens}` : '');
  // With traffic classes, each class has its own lengths (the by-class table): the run's are defaults.
  if (w.classes && w.classes.length > 0)
    return `${w.classes.length} traffic classes (${w.classes.map((c) => `${c.name} ${Math.round(c.share * 100)} %`).join(', ')} of the ${w.classShareOf ?? 'requests'}), each its own lengths over ${prompt} · ${outputLimitText(w)} · ${w.api} API`;
  return `${prompt} · ${outputLimitText(w)} · ${w.api} API`;
}

function describeTarget(s: RunSummary): string {
  const t = s.meta.target;
  if (!t.embedded) return t.baseUrl;
  const spec = t.simSpeculativeConfig ? `, speculative decoding ${t.simSpeculativeConfig}` : '';
  const priority = t.simSchedulingPolicy ? `, scheduling policy ${t.simSchedulingPolicy}` : '';
  return `embedded simulator${t.simProfile ? ` ${t.simProfile}` : ''}${t.timeMode ? ` (${t.timeMode} time)` : ''}${spec}${priority}`;
}

function serverView(s: RunSummary): RunView['server'] {
  const srv = s.server;
  if (!srv) return undefined;
  const rows: string[][] = [];
  for (const [name, label] of SERVER_LABELS) {
    const st = srv.series[name];
    if (!st) continue;
    const f = name === 'kvUsage' || name === 'kvFragmentation' ? fmtPct : fmtNum;
    rows.push([label, f(st.min), f(st.mean), f(st.max), f(st.last)]);
  }
  const notes: Array<[string, string]> = [];
  if (srv.preemptions !== undefined) notes.push(['preemptions', fmtInt(srv.preemptions)]);
  if (srv.prefixCacheHitRate !== undefined)
    notes.push(['prefix-cache hit rate', fmtPct(srv.prefixCacheHitRate)]);
  if (srv.kvFragmentation !== undefined) {
    notes.push([
      'KV fragmentation',
      fmtPct(srv.kvFragmentation) + (srv.fragmentationSource ? ` (${srv.fragmentationSource})` : ''),
    ]);
  }
  if (srv.generatedTokens !== undefined) notes.push(['generated tokens', fmtInt(srv.generatedTokens)]);
  if (srv.wastedTokens !== undefined) notes.push(['wasted tokens', fmtInt(srv.wastedTokens)]);
  if (srv.serverTtftMeanMs !== undefined)
    notes.push(['server TTFT mean', `${fmtMs(srv.serverTtftMeanMs)} ms`]);
  if (srv.serverItlMeanMs !== undefined) notes.push(['server ITL mean', `${fmtMs(srv.serverItlMeanMs)} ms`]);
  notes.push(...specDecodeNotes(srv));
  if (srv.scrapeFailures) notes.push(['failed scrapes', fmtInt(srv.scrapeFailures)]);
  if (srv.gpu) {
    rows.push(...gpuRows(srv.gpu));
    notes.push(...gpuNotes(srv.gpu));
  }
  return {
    // Without the engine's own metrics the block holds only the GPUs (its notes say from where).
    title:
      srv.samples > 0
        ? srv.replicas && srv.replicas.length > 1
          ? `Server (${srv.engine}, ${srv.replicas.length} replicas: their totals over ${srv.samples} scrape rounds)`
          : `Server (${srv.engine}, ${srv.samples} samples from ${srv.metricsUrl})`
        : 'Server GPUs',
    table: { header: ['series', 'min', 'mean', 'max', 'last'], rows, align: ['l', 'r', 'r', 'r', 'r'] },
    notes,
  };
}

/** Speculative decoding over the run (vLLM's counters), when the server drafts. */
function specDecodeNotes(srv: NonNullable<RunSummary['server']>): Array<[string, string]> {
  const notes: Array<[string, string]> = [];
  if (srv.specAcceptanceRate !== undefined)
    notes.push(['spec-decode acceptance rate', fmtPct(srv.specAcceptanceRate)]);
  if (srv.specMeanAcceptedLength !== undefined)
    notes.push(['spec-decode mean accepted length', fmtNum(srv.specMeanAcceptedLength)]);
  const byPosition = srv.specAcceptanceRateByPosition;
  if (byPosition && byPosition.length > 0) {
    notes.push([
      'spec-decode acceptance by position',
      byPosition.map((rate, k) => `${k}: ${fmtPct(rate)}`).join(' · '),
    ]);
  }
  return notes;
}

/** Each SLO's own attainment, when more than one is set (with one, it is the joint attainment). */
function perSloRows(s: RunSummary): Array<[string, string]> {
  const per = s.goodput.perSlo ?? {};
  const set = SLO_VIEW_ROWS.filter(([name]) => per[name] !== undefined);
  if (set.length < 2) return [];
  return set.map(([name, label]) => [`  ${label} alone`, fmtPct(per[name]!.attainment)]);
}

const SLO_VIEW_ROWS: ReadonlyArray<readonly [SloName, string]> = [
  ['ttft', latencyLabel('ttft')],
  ['tpot', latencyLabel('tpot')],
  ['e2el', latencyLabel('e2el')],
  ['userTps', 'user tokens/s'],
];

/** Per-user output tokens/s: median and slow tail. */
function perUserRows(s: RunSummary): Array<[string, string]> {
  const r = s.perUser?.outputTokensPerS;
  if (!r || r.count === 0) return [];
  return [
    [
      'per-user output tokens/s',
      `p50 ${fmtNum(r.p50)} · p10 ${fmtNum(r.p10)} · p1 ${fmtNum(r.p1)} (1000 / TPOT)`,
    ],
  ];
}

/** The server's own prompt total beside the client's, e.g. " (the server counted 32900)". */
function serverInputNote(s: RunSummary): string {
  const st = s.serverTokens;
  if (!st) return '';
  const of = st.requests === s.completed ? '' : ` in the ${fmtInt(st.requests)} responses that stated it`;
  return ` (the server counted ${fmtInt(st.inputTokens)}${of})`;
}

/** Decides and formats everything a run report shows. */
export function buildRunView(s: RunSummary): RunView {
  const openLoop = s.meta.load.mode === 'open';
  const view: RunView = {
    title: `goodput run ${s.meta.runId} · ${s.meta.model}`,
    context: contextRows(s),
    latency: latencyTable(s, openLoop),
    throughput: [
      ['requests/s', fmtNum(s.throughput.requestsPerS)],
      ['output tokens/s', fmtNum(s.throughput.outputTokensPerS)],
      ['total tokens/s', fmtNum(s.throughput.totalTokensPerS)],
      ['peak output tokens/s', fmtNum(s.throughput.peakOutputTokensPerS)],
      ...perUserRows(s),
    ],
    sloText: describeSloText(s.goodput.slo),
    goodput: goodputRows(s),
    efficiency: efficiencyLines(s.efficiency),
    counts: countRows(s),
    load: loadRows(s, openLoop),
    errors: s.errors.map((e) => ({
      code: e.code,
      count: fmtInt(e.count),
      ...(e.httpStatus !== undefined ? { httpStatus: String(e.httpStatus) } : {}),
      example: e.example,
      cause: REQUEST_ERRORS[e.code]?.cause ?? '',
      fix: REQUEST_ERRORS[e.code]?.hint ?? '',
    })),
    warnings: runCaveats(s).map((c) => c.text),
  };
  const server = serverView(s);
  if (server) view.server = server;
  const replicas = buildReplicasView(s);
  if (replicas) view.replicas = replicas;
  const turns = turnsView(s);
  if (turns) view.turns = turns;
  const agents = agentsView(s);
  if (agents) view.agents = agents;
  const classes = classesView(s, describeSloText);
  if (classes) view.classes = classes;
  const buckets = bucketsTable(s);
  if (buckets) view.buckets = buckets;
  return view;
}

/** What was run: target, load, workload, sessions, sampling, duration and the server's facts. */
function contextRows(s: RunSummary): RunView['context'] {
  return [
    ['target', describeTarget(s)],
    ['load', describeLoad(s)],
    ['workload', describeWorkload(s)],
    ...(describeSessions(s) !== undefined
      ? ([['sessions', describeSessions(s)!]] as Array<[string, string]>)
      : []),
    [
      'sampling',
      `temperature ${s.meta.sampling.temperature}` +
        (s.meta.sampling.topP !== undefined ? ` · top_p ${s.meta.sampling.topP}` : '') +
        ` · seed ${s.meta.seed}` +
        (s.meta.sampling.ignoreEos ? ' · ignore_eos' : ''),
    ],
    ['duration', `${fmtNum(s.duration)} s`],
    ...serverFacts(s.meta),
  ];
}

/**
 * The latency table: phase latencies only for a run that reasoned (without reasoning, first
 * answer = TTFT); from-schedule latencies only for an open loop.
 */
function latencyTable(s: RunSummary, openLoop: boolean): RunView['latency'] {
  const rows = LATENCIES.flatMap(({ name, label, reasoning, fromSchedule }) => {
    const stats = s.latency[name];
    if (!stats || (reasoning && !s.reasoning) || (fromSchedule && !openLoop)) return [];
    return [latencyRow(label, stats)];
  });
  return {
    header: ['latency (ms)', 'count', 'mean', 'p50', 'p90', 'p95', 'p99', 'p99.9', 'max'],
    rows,
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  };
}

function goodputRows(s: RunSummary): RunView['goodput'] {
  const g = s.goodput;
  return [
    ['good requests', `${fmtInt(g.goodRequests)} of ${fmtInt(g.attempted)} attempted`],
    ['SLO attainment', fmtPct(g.attainment)],
    ...perSloRows(s),
    ['request goodput', `${fmtNum(g.requestGoodput)} req/s`],
    ...(g.goodTokenThroughput !== undefined
      ? ([
          [
            'good-token throughput',
            `${fmtNum(g.goodTokenThroughput)} tok/s (output tokens of good requests)`,
          ],
        ] as Array<[string, string]>)
      : []),
    [
      'token goodput ratio',
      `${fmtPct(g.tokenGoodputRatio)} (useful ${fmtInt(g.usefulOutputTokens)} of ${fmtInt(g.totalOutputTokens)} tokens, ` +
        `${fmtInt(g.wastedOutputTokens)} wasted; ${g.tokenSource === 'server' ? "server's counter" : 'client count'})`,
    ],
  ];
}

function countRows(s: RunSummary): RunView['counts'] {
  const c = s.counts;
  return [
    ['attempted', fmtInt(c.attempted)],
    ['completed', fmtInt(c.completed)],
    ['failed', fmtInt(c.failed)],
    ['cancelled', fmtInt(c.cancelled)],
    ...(c.interrupted ? [['interrupted (run stopped)', fmtInt(c.interrupted)] as [string, string]] : []),
    ['warmup', fmtInt(c.warmup)],
    ['retries', fmtInt(c.retries)],
    ['input tokens', fmtInt(s.total_input_tokens) + serverInputNote(s)],
    ['output tokens', fmtInt(s.total_output_tokens)],
  ];
}

/** How the load went: peak in flight, dispatch lag (open loop), drops, the client's GC pauses, each stage. */
function loadRows(s: RunSummary, openLoop: boolean): RunView['load'] {
  return [
    ['peak in flight', fmtInt(s.load.peakInFlight)],
    ...(openLoop || s.load.dispatchLag.count > 0
      ? ([
          [
            'dispatch lag',
            `p50 ${fmtMs(s.load.dispatchLag.p50)} ms · p99 ${fmtMs(s.load.dispatchLag.p99)} ms · max ${fmtMs(s.load.dispatchLag.max)} ms`,
          ],
          ['late sends', fmtInt(s.load.lateSends)],
        ] as Array<[string, string]>)
      : []),
    ['dropped', fmtInt(s.load.dropped)],
    ...(s.load.gcPauses
      ? ([
          [
            'client GC pauses',
            `${fmtInt(s.load.gcPauses.count)} · p99 ${fmtMs(s.load.gcPauses.p99Ms)} ms · max ${fmtMs(s.load.gcPauses.maxMs)} ms · ${fmtMs(s.load.gcPauses.totalMs)} ms in all`,
          ],
        ] as Array<[string, string]>)
      : []),
    ...(s.load.stages ?? []).map((st, i): [string, string] => [
      `stage ${i + 1} (${st.startMs / 1000}–${(st.startMs + st.durationMs) / 1000} s)`,
      `${st.of} ${st.from}→${st.to}: sent ${fmtInt(st.sent)} (${st.achievedRate.toFixed(2)} req/s) · mean in flight ${st.meanInFlight.toFixed(1)}`,
    ]),
  ];
}

/** Latencies by prompt length, when the run has prompt buckets. */
function bucketsTable(s: RunSummary): RunView['buckets'] {
  if (!s.buckets || s.buckets.length === 0) return undefined;
  return {
    header: [
      'prompt tokens',
      'requests',
      'ok',
      ...['ttft_p50', 'ttft_p99', 'e2el_p50', 'e2el_p99'].map((id) => metric(id).label),
    ],
    rows: s.buckets.map((b) => [
      fmtTokenRange(b.minTokens, b.maxTokens),
      fmtInt(b.count),
      fmtInt(b.ttft.count),
      fmtMs(b.ttft.p50),
      fmtMs(b.ttft.p99),
      fmtMs(b.e2el.p50),
      fmtMs(b.e2el.p99),
    ]),
    align: ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
  };
}
