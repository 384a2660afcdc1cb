/**
 * Reads a sweep file (sweep.json, written by `goodput sweep`) defensively into the report's
 * sweep view: whatever shape of step list it has, each step's load and figures are taken from
 * the step itself or from its run summary. Pure.
 *
 * @module
 */

import type { RunSummary } from '../../types.js';
import type { SweepPoint, SweepView } from './model.js';

const fmtLoad = (v: number) => String(Math.round(v * 1000) / 1000);

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first finite number found at any of the dotted paths. */
export function numAt(obj: unknown, ...paths: string[]): number | undefined {
  for (const path of paths) {
    let cur: unknown = obj;
    for (const key of path.split('.')) cur = isObj(cur) ? cur[key] : undefined;
    if (typeof cur === 'number' && Number.isFinite(cur)) return cur;
  }
  return undefined;
}

/** The list of steps of a sweep file, under whichever name it uses. */
export function sweepSteps(raw: unknown): Obj[] {
  if (Array.isArray(raw)) return raw.filter(isObj);
  if (!isObj(raw)) return [];
  for (const key of ['points', 'steps', 'runs', 'results', 'levels']) {
    const v = raw[key];
    if (Array.isArray(v)) return v.filter(isObj);
  }
  return [];
}

/** Where a step's result directory is, when the sweep file names one. */
export function stepDir(step: Obj): string | undefined {
  for (const key of ['dir', 'outDir', 'path', 'resultDir', 'runDir']) {
    if (typeof step[key] === 'string') return step[key] as string;
  }
  return undefined;
}

const LOAD_PATHS = [
  'load',
  'concurrency',
  'rate',
  'value',
  'level',
  'summary.meta.load.concurrency',
  'summary.meta.load.rate',
];

function pointOf(step: Obj, summary: RunSummary | undefined): SweepPoint | undefined {
  const load =
    numAt(step, ...LOAD_PATHS) ??
    (summary
      ? summary.meta.load.mode === 'open'
        ? summary.meta.load.rate
        : summary.meta.load.concurrency
      : undefined);
  if (load === undefined) return undefined;
  const src: unknown[] = [step, step.summary, summary];
  const pick = (...paths: string[]) => {
    for (const s of src) {
      const v = numAt(s, ...paths);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  const point: SweepPoint = {
    load,
    requestsPerS:
      pick('requestsPerS', 'requestThroughput', 'request_throughput', 'throughput.requestsPerS') ?? 0,
    outputTokensPerS:
      pick('outputTokensPerS', 'outputThroughput', 'output_throughput', 'throughput.outputTokensPerS') ?? 0,
  };
  const optional: Array<[keyof SweepPoint, string[]]> = [
    ['requestGoodput', ['requestGoodput', 'request_goodput', 'goodput.requestGoodput']],
    ['p99TtftMs', ['p99TtftMs', 'p99_ttft_ms', 'latency.ttft.p99']],
    ['p99TpotMs', ['p99TpotMs', 'p99_tpot_ms', 'latency.tpot.p99']],
    ['p99E2elMs', ['p99E2elMs', 'p99_e2el_ms', 'latency.e2el.p99']],
  ];
  for (const [key, paths] of optional) {
    const v = pick(...paths);
    if (v !== undefined) (point as unknown as Record<string, number>)[key] = v;
  }
  return point;
}

/** A marker's load: a number, or an object holding one. */
function markerLoad(raw: Obj, ...keys: string[]): number | undefined {
  for (const key of keys) {
    const v = raw[key];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    const inner = numAt(v, ...LOAD_PATHS);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/**
 * The sweep view of a sweep file. `stepSummaries[i]` is the summary read from step i's result
 * directory, when there is one.
 */
export function sweepView(raw: unknown, stepSummaries: Array<RunSummary | undefined> = []): SweepView {
  const steps = sweepSteps(raw);
  const obj = isObj(raw) ? raw : {};
  const firstSummary = stepSummaries.find((s) => s !== undefined);
  const sweepMode = obj.mode ?? obj.loadKind ?? obj.by ?? obj.axis;
  const isRate = /rate|open/i.test(String(sweepMode ?? firstSummary?.meta.load.mode ?? ''));
  // A rate sweep also runs anchor points at a concurrency: they are not on the rate axis.
  const onAxis = (s: Obj) => typeof s.mode !== 'string' || sweepMode === undefined || s.mode === sweepMode;
  const points = steps
    .map((s, i) => (onAxis(s) ? pointOf(s, stepSummaries[i]) : undefined))
    .filter((p): p is SweepPoint => p !== undefined)
    .sort((a, b) => a.load - b.load);
  const notes: string[] = [];
  if (typeof obj.stoppedEarly === 'string') notes.push(`stopped early: ${obj.stoppedEarly}`);
  for (const key of ['stopReason', 'note']) {
    if (typeof obj[key] === 'string') notes.push(obj[key] as string);
  }
  if (obj.interrupted === true) notes.push('the sweep was interrupted');
  const firstFailing = numAt(obj, 'capacity.firstFailingLoad');
  if (firstFailing !== undefined) notes.push(`first load missing the SLO: ${fmtLoad(firstFailing)}`);
  const view: SweepView = { loadLabel: isRate ? 'rate (req/s)' : 'concurrency', points, notes };
  const saturation = markerLoad(obj, 'saturation', 'saturationPoint', 'saturationLoad', 'knee');
  const capacity = markerLoad(obj, 'capacityAtSlo', 'capacity', 'capacityAtSloLoad', 'maxLoadMeetingSlo');
  if (saturation !== undefined) view.saturationLoad = saturation;
  if (capacity !== undefined) view.capacityAtSloLoad = capacity;
  return view;
}
