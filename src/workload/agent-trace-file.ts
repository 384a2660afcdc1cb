/**
 * Reading an agent trace file (`--agent-trace FILE`, `--agent-trace-format`): streamed a line at
 * a time with its sha256, bounded in bytes, in line length and in lines, all of it read and
 * checked before the first request is sent. The form is given or recognised from the first
 * line's object: `resourceSpans` is an OTLP JSON export (agent-trace-otel.ts), `requests` with
 * `block_size` or `hash_id_scope` a WEKA trace (agent-trace-weka.ts), `steps` goodput's own
 * (agent-trace.ts). A file whose first line only opens a JSON value is read as one JSON
 * document (a pretty-printed export), an object or a list of them, bounded tighter.
 *
 * @module
 */

import { createHash } from 'node:crypto';
import { ExitCode, GoodputError } from '../errors.js';
import { inputStopSignal, openForReading } from '../util/index.js';
import {
  type AgentTrace,
  type AgentTraceFormat,
  type AgentTraceRun,
  agentTraceError,
  parseGoodputRun,
  parseJsonLine,
} from './agent-trace.js';
import { OtlpSpans } from './agent-trace-otel.js';
import { parseWekaRun } from './agent-trace-weka.js';

export const AGENT_TRACE_BOUNDS = {
  /** The whole file. */
  bytes: 2 * 1024 ** 3,
  /** One line (a WEKA trace of a thousand calls with their hash ids fits). */
  lineBytes: 64 * 1024 ** 2,
  lines: 1_000_000,
  /** A file read as one JSON document. */
  documentBytes: 256 * 1024 ** 2,
} as const;

type Obj = Record<string, unknown>;

function recognise(o: Obj): AgentTraceFormat {
  if ('resourceSpans' in o) return 'otlp';
  if ('requests' in o && ('block_size' in o || 'hash_id_scope' in o)) return 'weka';
  return 'goodput';
}

/** Turns a file's lines into runs: the parse shared by the file reader and `parseAgentTrace`. */
class AgentTraceLines {
  private format: AgentTraceFormat | undefined;
  private readonly runs: AgentTraceRun[] = [];
  private otlp: OtlpSpans | undefined;
  /** Set when the file is one JSON document: its text so far. */
  private document: string[] | undefined;
  private documentBytes = 0;
  private lines = 0;

  constructor(
    private readonly name: string,
    given: AgentTraceFormat | undefined,
  ) {
    this.format = given;
  }

  line(text: string, lineNo: number): void {
    if (++this.lines > AGENT_TRACE_BOUNDS.lines)
      throw agentTraceError(
        `${this.name}:${lineNo}`,
        undefined,
        `more than ${AGENT_TRACE_BOUNDS.lines} lines`,
      );
    if (this.document || (this.runs.length === 0 && !this.otlp && this.isDocumentStart(text))) {
      this.more(text);
      return;
    }
    const where = `${this.name}:${lineNo}`;
    const o = parseJsonLine(text, where);
    if (o) this.object(o, where, lineNo);
  }

  /**
   * A first line that only opens a JSON value (`{`, `[`, or ends opening one, as
   * `{"resourceSpans": [` does): the file is one pretty-printed document. A first line cut short
   * (`{"steps": [{"kind"`) stays a line, so its error names line 1.
   */
  private isDocumentStart(text: string): boolean {
    const t = text.trim();
    if (t === '' || (t[0] !== '{' && t[0] !== '[')) return false;
    const last = t[t.length - 1];
    if (t.length > 1 && last !== '{' && last !== '[') return false;
    try {
      JSON.parse(t);
      return false;
    } catch {
      this.document = [];
      return true;
    }
  }

  private more(text: string): void {
    this.documentBytes += text.length + 1;
    if (this.documentBytes > AGENT_TRACE_BOUNDS.documentBytes)
      throw agentTraceError(
        this.name,
        undefined,
        `one JSON document over ${AGENT_TRACE_BOUNDS.documentBytes / 1024 ** 2} MiB`,
        'write it as JSON lines (one run, or one OTLP export, per line)',
      );
    this.document!.push(text);
  }

  private object(o: Obj, where: string, lineNo: number): void {
    this.format ??= recognise(o);
    if (this.format === 'otlp') {
      this.otlp ??= new OtlpSpans(this.name);
      this.otlp.add(o, where);
    } else if (this.format === 'weka') this.runs.push(parseWekaRun(o, where, lineNo));
    else this.runs.push(parseGoodputRun(o, where, lineNo));
  }

  finish(sha256: string): AgentTrace {
    if (this.document) {
      const where = `${this.name} (one JSON document)`;
      let v: unknown;
      try {
        v = JSON.parse(this.document.join('\n'));
      } catch (e) {
        throw agentTraceError(where, undefined, `not valid JSON (${(e as Error).message})`);
      }
      const list = Array.isArray(v) ? v : [v];
      list.forEach((o, i) => {
        const at = Array.isArray(v) ? `${where} [${i}]` : where;
        if (o === null || typeof o !== 'object' || Array.isArray(o))
          throw agentTraceError(at, undefined, 'expected a JSON object');
        this.object(o as Obj, at, i + 1);
      });
    }
    if (this.otlp) this.runs.push(...this.otlp.runs());
    if (this.runs.length === 0) throw agentTraceError(this.name, undefined, 'holds no agent run');
    const timed = this.runs.filter((r) => r.startMs !== undefined).length;
    if (timed !== 0 && timed !== this.runs.length) {
      const odd = this.runs.find((r) => r.startMs === undefined)!;
      throw agentTraceError(
        this.name,
        'start_ms',
        `run ${odd.id} has none while others have one`,
        'give every run a start_ms (replayed at those times) or none (back to back, --agents at once)',
      );
    }
    // Runs replay in start order (a stable sort: runs of one start keep the file's order).
    if (timed !== 0) this.runs.sort((a, b) => a.startMs! - b.startMs!);
    return { path: this.name, format: this.format ?? 'goodput', sha256, runs: this.runs };
  }
}

/** Parses an agent trace's whole text (pure; `name` is used in messages and as the path). */
export function parseAgentTrace(text: string, name: string, format?: AgentTraceFormat): AgentTrace {
  const lines = new AgentTraceLines(name, format);
  const all = text.split('\n');
  for (let i = 0; i < all.length; i++) lines.line(all[i]!, i + 1);
  return lines.finish(createHash('sha256').update(text).digest('hex'));
}

function tooLong(path: string, lineNo: number): GoodputError {
  return agentTraceError(
    `${path}:${lineNo}`,
    undefined,
    `line longer than ${AGENT_TRACE_BOUNDS.lineBytes / 1024 ** 2} MiB: not read further`,
    'split the run, or replay a part of the trace',
  );
}

function stoppedError(path: string): GoodputError {
  return new GoodputError(
    'E_DATASET',
    `reading agent trace ${path} was stopped`,
    'nothing was sent; run again',
    {
      exitCode: ExitCode.INTERRUPTED,
    },
  );
}

/**
 * Reads and checks an agent trace file (see the module comment); errors are E_DATASET (exit 2).
 * Opened as every input file is (util's openForReading: a FIFO nobody writes to cannot hold the
 * command), stopped by `signal` or, without one, by the CLI's Ctrl-C and SIGTERM.
 */
export async function loadAgentTrace(
  path: string,
  options: { format?: AgentTraceFormat; signal?: AbortSignal } = {},
): Promise<AgentTrace> {
  const lines = new AgentTraceLines(path, options.format);
  const hash = createHash('sha256');
  const signal = options.signal ?? inputStopSignal;
  if (signal.aborted) throw stoppedError(path);
  let input: ReturnType<typeof openForReading> | undefined;
  const onAbort = () => input?.close();
  signal.addEventListener('abort', onAbort, { once: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  let lineNo = 0;
  try {
    input = openForReading(path, 1024 * 1024);
    for await (const chunk of input.chunks) {
      total += chunk.length;
      if (total > AGENT_TRACE_BOUNDS.bytes)
        throw agentTraceError(
          path,
          undefined,
          `over ${AGENT_TRACE_BOUNDS.bytes / 1024 ** 3} GiB: not read further`,
        );
      hash.update(chunk);
      let at = 0;
      for (let nl = chunk.indexOf(10, at); nl !== -1; nl = chunk.indexOf(10, at)) {
        const piece = chunk.subarray(at, nl);
        if (pendingBytes + piece.length > AGENT_TRACE_BOUNDS.lineBytes) throw tooLong(path, lineNo + 1);
        lines.line(Buffer.concat([...pending, piece]).toString('utf8'), ++lineNo);
        pending = [];
        pendingBytes = 0;
        at = nl + 1;
      }
      if (at < chunk.length) {
        pending.push(Buffer.from(chunk.subarray(at)));
        pendingBytes += chunk.length - at;
        if (pendingBytes > AGENT_TRACE_BOUNDS.lineBytes) throw tooLong(path, lineNo + 1);
      }
    }
    if (signal.aborted) throw stoppedError(path);
    if (pending.length > 0) lines.line(Buffer.concat(pending).toString('utf8'), ++lineNo);
  } catch (e) {
    if (e instanceof GoodputError) throw e;
    if (signal.aborted) throw stoppedError(path);
    throw new GoodputError(
      'E_USAGE',
      `cannot read --agent-trace ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      'pass the path of an agent trace file (docs/agents.md)',
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
    input?.close();
  }
  return lines.finish(hash.digest('hex'));
}
