/**
 * A tolerant, allocation-light parser of the Prometheus text exposition format (0.0.4) and
 * the parts of OpenMetrics that servers actually send: `# HELP` / `# TYPE` lines, other
 * comments, label sets with `\\`, `\"` and `\n` escapes, quoted UTF-8 metric names
 * (`{"my.metric",a="b"}`), `NaN` / `+Inf` / `-Inf`, optional timestamps, exemplars after
 * ` # ` (ignored), `# EOF`, and CRLF line ends. A line that does not parse is skipped and
 * counted: one bad line must not lose a whole scrape.
 *
 * Pure: text in, samples out. Histograms and summaries come out as their flat samples
 * (`x_bucket{le=…}`, `x_sum`, `x_count`, `x{quantile=…}`), which is what normalisation needs.
 *
 * @module
 */

/** Metric family types as declared by `# TYPE`. */
export type PromMetricType =
  | 'counter'
  | 'gauge'
  | 'histogram'
  | 'summary'
  | 'untyped'
  | 'info'
  | 'stateset'
  | 'gaugehistogram'
  | 'unknown';

/** One sample line. */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** Milliseconds since the epoch, when the line carried a timestamp. */
  timestampMs?: number;
}

export interface PromExposition {
  samples: PromSample[];
  /** Family name → declared type. */
  types: Record<string, PromMetricType>;
  /** Family name → help text (unescaped). */
  help: Record<string, string>;
  /** Lines that could not be parsed (skipped). */
  invalidLines: number;
}

const NO_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Parses a Prometheus text exposition.
 *
 * @example
 * ```ts
 * const { samples } = parsePrometheusText('vllm:num_requests_running{model_name="m"} 3\n');
 * samples[0]; // { name: 'vllm:num_requests_running', labels: { model_name: 'm' }, value: 3 }
 * ```
 */
export function parsePrometheusText(text: string): PromExposition {
  const out: PromExposition = { samples: [], types: {}, help: {}, invalidLines: 0 };
  parseLines(text, out, 0, text.length);
  return out;
}

/** Characters parsed between two yields of parsePrometheusTextYielding (a few ms of work). */
export const PARSE_SLICE_CHARS = 128 * 1024;

/**
 * parsePrometheusText that hands the event loop back between slices of about `sliceChars`
 * characters (whole lines): the same result, but a page of many MiB (a big or hostile
 * endpoint) does not stall the timers of a load or a watch round for the whole parse.
 */
export async function parsePrometheusTextYielding(
  text: string,
  sliceChars = PARSE_SLICE_CHARS,
): Promise<PromExposition> {
  const out: PromExposition = { samples: [], types: {}, help: {}, invalidLines: 0 };
  let pos = 0;
  while (pos < text.length) {
    pos = parseLines(text, out, pos, pos + sliceChars);
    if (pos < text.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

/**
 * Parses the lines of `text` that start at or after `pos` and before `until` into `out`;
 * returns where the next line starts (`text.length` or past it once done, `# EOF` included).
 */
function parseLines(text: string, out: PromExposition, pos: number, until: number): number {
  const n = text.length;
  while (pos < n && pos < until) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = n;
    let lineEnd = end;
    if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13 /* \r */) lineEnd--;
    const line = text.slice(pos, lineEnd);
    pos = end + 1;
    if (line.length === 0) continue;
    if (line.charCodeAt(0) === 35 /* # */) {
      if (line === '# EOF') return n;
      parseComment(line, out);
      continue;
    }
    const sample = parseSampleLine(line);
    if (sample) out.samples.push(sample);
    else if (line.trim().length > 0) out.invalidLines++;
  }
  return pos;
}

function parseComment(line: string, out: PromExposition): void {
  // "# HELP name text" / "# TYPE name type"; anything else is a plain comment.
  const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s+(.*))?$/.exec(line);
  if (!m) return;
  const name = unquoteName(m[2]!);
  const rest = m[3] ?? '';
  if (m[1] === 'TYPE') out.types[name] = normaliseType(rest.trim());
  else out.help[name] = rest.replace(/\\(\\|n)/g, (_, c: string) => (c === 'n' ? '\n' : '\\'));
}

function unquoteName(name: string): string {
  return name.length >= 2 && name.startsWith('"') && name.endsWith('"') ? name.slice(1, -1) : name;
}

function normaliseType(t: string): PromMetricType {
  switch (t.toLowerCase()) {
    case 'counter':
    case 'gauge':
    case 'histogram':
    case 'summary':
    case 'untyped':
    case 'info':
    case 'stateset':
    case 'gaugehistogram':
      return t.toLowerCase() as PromMetricType;
    default:
      return 'unknown';
  }
}

function isNameChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || // a-z
    (c >= 65 && c <= 90) || // A-Z
    (c >= 48 && c <= 57) || // 0-9
    c === 95 || // _
    c === 58 // :
  );
}

/** Parses `name{labels} value [timestamp] [# exemplar]`, or returns undefined. */
export function parseSampleLine(line: string): PromSample | undefined {
  let i = 0;
  const n = line.length;
  while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
  const nameStart = i;
  while (i < n && isNameChar(line.charCodeAt(i))) i++;
  let name = line.slice(nameStart, i);
  let labels = NO_LABELS;
  if (i < n && line[i] === '{') {
    const parsed = parseLabels(line, i + 1);
    if (!parsed) return undefined;
    labels = parsed.labels;
    if (parsed.name !== undefined) {
      if (name.length > 0) return undefined;
      name = parsed.name;
    }
    i = parsed.end;
  }
  if (name.length === 0) return undefined;
  // value
  while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
  const valueStart = i;
  while (i < n && line[i] !== ' ' && line[i] !== '\t') i++;
  const value = parseValue(line.slice(valueStart, i));
  if (value === undefined) return undefined;
  const sample: PromSample = { name, labels, value };
  // optional timestamp, then an optional exemplar ("# {...} v [ts]") which we ignore
  while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
  if (i < n && line[i] !== '#') {
    const tsStart = i;
    while (i < n && line[i] !== ' ' && line[i] !== '\t') i++;
    const ts = Number(line.slice(tsStart, i));
    if (!Number.isFinite(ts)) return undefined;
    // Prometheus text: integer milliseconds; OpenMetrics: float seconds (has a '.' or is small).
    sample.timestampMs = line.slice(tsStart, i).includes('.') ? ts * 1000 : ts;
  }
  return sample;
}

/** Parses a float in exposition syntax: decimals, exponents, NaN, +Inf, -Inf, Inf. */
export function parseValue(s: string): number | undefined {
  if (s.length === 0) return undefined;
  switch (s) {
    case 'NaN':
    case 'nan':
      return Number.NaN;
    case '+Inf':
    case 'Inf':
    case '+inf':
    case 'inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
    case '-inf':
      return Number.NEGATIVE_INFINITY;
  }
  const v = Number(s);
  // Number() accepts "0x10", " ", "Infinity": reject what the format does not allow.
  if (Number.isNaN(v) || !/^[-+]?(\d|\.\d)/.test(s) || /[xX]/.test(s)) return undefined;
  return v;
}

interface ParsedLabels {
  labels: Record<string, string>;
  /** A quoted metric name given inside the braces (OpenMetrics / Prometheus 3 UTF-8 names). */
  name?: string;
  /** Index just after the closing brace. */
  end: number;
}

function parseLabels(line: string, start: number): ParsedLabels | undefined {
  const labels: Record<string, string> = {};
  let name: string | undefined;
  let i = start;
  const n = line.length;
  for (;;) {
    while (i < n && (line[i] === ' ' || line[i] === '\t' || line[i] === ',')) i++;
    if (i >= n) return undefined;
    if (line[i] === '}') return { labels, name, end: i + 1 };
    let key: string;
    if (line[i] === '"') {
      const q = readQuoted(line, i);
      if (!q) return undefined;
      i = q.end;
      while (i < n && line[i] === ' ') i++;
      if (line[i] !== '=') {
        // a bare quoted string is the metric name
        if (name !== undefined) return undefined;
        name = q.value;
        continue;
      }
      key = q.value;
    } else {
      const keyStart = i;
      while (i < n && isNameChar(line.charCodeAt(i))) i++;
      key = line.slice(keyStart, i);
      if (key.length === 0) return undefined;
      while (i < n && line[i] === ' ') i++;
      if (line[i] !== '=') return undefined;
    }
    i++; // '='
    while (i < n && line[i] === ' ') i++;
    if (line[i] !== '"') return undefined;
    const v = readQuoted(line, i);
    if (!v) return undefined;
    labels[key] = v.value;
    i = v.end;
  }
}

/** Reads a double-quoted string starting at `start` (the quote), unescaping \\, \" and \n. */
function readQuoted(line: string, start: number): { value: string; end: number } | undefined {
  // Fast path: no escape before the closing quote (nearly every label value).
  const quote = line.indexOf('"', start + 1);
  if (quote === -1) return undefined;
  const slash = line.indexOf('\\', start + 1);
  if (slash === -1 || slash > quote) return { value: line.slice(start + 1, quote), end: quote + 1 };
  let i = start + 1;
  const n = line.length;
  let value = '';
  let chunkStart = i;
  while (i < n) {
    const c = line[i];
    if (c === '"') return { value: value + line.slice(chunkStart, i), end: i + 1 };
    if (c === '\\') {
      value += line.slice(chunkStart, i);
      const next = line[i + 1];
      if (next === 'n') value += '\n';
      else if (next === '\\' || next === '"') value += next;
      else value += `\\${next ?? ''}`;
      i += 2;
      chunkStart = i;
      continue;
    }
    i++;
  }
  return undefined;
}
