/**
 * Another tool's result in goodput's metric vocabulary (an ImportedSummary), pure: the
 * readers of vLLM, guidellm, AIPerf and GenAI-Perf results fill the catalogue figures the
 * source states, exactly (units converted exactly and said), and everything else is listed
 * as missing. A reader of an ImportedSummary takes a figure with {@link importedValue}, which
 * is undefined for a missing one: never 0, never estimated.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ImportedSummary, ImportSource, ImportTool } from '../types.js';
import { METRICS, type MetricDef } from './catalogue.js';
import { readAiperf } from './import-aiperf.js';
import type { ImportedFigures } from './import-common.js';
import { readGuidellm } from './import-guidellm.js';
import { readInferencePerf } from './import-inference-perf.js';
import { readLlmd } from './import-llmd.js';
import { readSglang } from './import-sglang.js';
import { readVllm } from './import-vllm.js';

/** How each tool's file is named in messages. */
export const TOOL_DESCRIPTIONS: Record<ImportTool, string> = {
  vllm: 'a vLLM --save-result file',
  guidellm: 'a guidellm benchmarks file',
  aiperf: 'an AIPerf profile export',
  'genai-perf': 'a GenAI-Perf profile export',
  'llm-d': 'an llm-d benchmark report',
  'inference-perf': 'an inference-perf lifecycle report',
  sglang: 'an SGLang bench_serving result',
};

/** Tool names for titles. */
export const TOOL_NAMES: Record<ImportTool, string> = {
  vllm: 'vLLM',
  guidellm: 'guidellm',
  aiperf: 'AIPerf',
  'genai-perf': 'GenAI-Perf',
  'llm-d': 'llm-d',
  'inference-perf': 'inference-perf',
  sglang: 'SGLang',
};

/** The tools whose name is said with a vowel first ("an AIPerf", "an llm-d", "an SGLang"). */
const AN: ReadonlySet<ImportTool> = new Set(['aiperf', 'llm-d', 'inference-perf', 'sglang']);

/** "a vLLM result", "an AIPerf result": how a run from another tool is named in sentences. */
export function resultNoun(tool: ImportTool): string {
  return `${AN.has(tool) ? 'an' : 'a'} ${TOOL_NAMES[tool]} result`;
}

/** The figure of a catalogue metric in an imported result, or undefined when the source lacks it. */
export function importedValue(
  imported: Pick<ImportedSummary, 'figures'>,
  def: MetricDef,
): number | undefined {
  const v = imported.figures[def.id];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The catalogue ids an ImportedSummary does not state, in catalogue order. */
export function missingIds(figures: Record<string, number>): string[] {
  return METRICS.filter((m) => figures[m.id] === undefined).map((m) => m.id);
}

/** The file a result was read from, as the readers stamp it. */
export interface ImportFile {
  path: string;
  sha256: string;
  /** Per-request records read beside it (AIPerf's profile_export.jsonl, parsed lines). */
  records?: readonly unknown[];
}

const READERS: Record<ImportTool, (value: unknown, records?: readonly unknown[]) => ImportedFigures[]> = {
  vllm: readVllm,
  guidellm: readGuidellm,
  aiperf: readAiperf,
  'genai-perf': (value) => readAiperf(value),
  'llm-d': readLlmd,
  'inference-perf': readInferencePerf,
  sglang: readSglang,
};

/**
 * Why a stated figure cannot be, else undefined: the rule the live client applies to a
 * server's counts (IMPOSSIBLE_VALUE). Latencies, rates, counts, watts and sizes are never
 * negative; ratios lie in [0, 1].
 */
export function impossibleFigure(def: MetricDef, value: number): string | undefined {
  if (!Number.isFinite(value)) return `${value} is not a number`;
  if (value < 0) return `${value} is negative`;
  if (def.unit === 'ratio' && value > 1) return `${value} is above 1`;
  return undefined;
}

/** A benchmark's figures with the impossible ones left out (not measured), each named in a note. */
function withoutImpossible(b: ImportedFigures): ImportedFigures {
  const figures: Record<string, number> = {};
  const notes = [...b.notes];
  for (const [id, value] of Object.entries(b.figures)) {
    const def = METRICS.find((m) => m.id === id);
    const why = def ? impossibleFigure(def, value) : undefined;
    if (why === undefined) figures[id] = value;
    else notes.push(`${def!.label} as stated (${why}) is impossible: not measured`);
  }
  return { ...b, figures, notes };
}

/**
 * Every benchmark of another tool's result as an ImportedSummary: one for a vLLM, AIPerf,
 * GenAI-Perf, llm-d or inference-perf file, one per benchmark of a guidellm file (a sweep holds
 * several) and one per line of an SGLang bench_serving JSONL.
 */
export function importResult(tool: ImportTool, value: unknown, file: ImportFile): ImportedSummary[] {
  const benches = READERS[tool](value, file.records).map(withoutImpossible);
  return benches.map((b, i) => {
    const source: ImportSource = { tool, path: file.path, sha256: file.sha256 };
    if (benches.length > 1 || b.label !== undefined) {
      source.benchmark = { index: i + 1, count: benches.length, label: b.label ?? `benchmark ${i + 1}` };
    }
    const out: ImportedSummary = {
      schemaVersion: 1,
      kind: 'goodput.imported',
      source,
      figures: b.figures,
      missing: missingIds(b.figures),
      notes: b.notes,
      context: b.context,
    };
    if (b.samples !== undefined) out.samples = b.samples;
    if (b.model !== undefined) out.model = b.model;
    if (b.date !== undefined) out.date = b.date;
    return out;
  });
}

/** "vllm.json", "sweep.json#2 (constant 4 req/s)": how an imported result is named. */
export function importedName(imported: ImportedSummary, base: string): string {
  const b = imported.source.benchmark;
  return b && b.count > 1 ? `${base}#${b.index}` : base;
}

/**
 * The one benchmark a command reads from a file: the only one, or the one `#N` selects.
 * Several without a selector, or a selector out of range, is refused listing them.
 */
export function pickBenchmark(
  runs: readonly ImportedSummary[],
  selector: number | undefined,
  path: string,
): ImportedSummary {
  const list = () =>
    runs.map((r, i) => `${path}#${i + 1}: ${r.source.benchmark?.label ?? `benchmark ${i + 1}`}`).join('\n  ');
  if (runs.length === 0) {
    throw new GoodputError(
      'E_RESULT',
      `${path} holds no benchmark`,
      'pass a file with at least one benchmark',
    );
  }
  if (selector !== undefined) {
    const run = runs[selector - 1];
    if (!run) {
      throw new GoodputError(
        'E_USAGE',
        `${path} has no benchmark #${selector}: it holds ${runs.length}`,
        `pick one of:\n  ${list()}`,
      );
    }
    return run;
  }
  if (runs.length > 1) {
    throw new GoodputError(
      'E_USAGE',
      `${path} holds ${runs.length} benchmarks (a sweep): this command reads one`,
      `pick one by appending #N to the file name:\n  ${list()}`,
    );
  }
  return runs[0]!;
}
