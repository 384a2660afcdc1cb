/**
 * High-rate pacing: an open-loop run at 2,000 req/s for 10 s (Poisson arrivals) against a
 * zero-delay loopback server of the bench's own (child process, `burst` mode, short
 * responses), held against the floor of this machine: a minimal pacer over the raw undici
 * reader (bench/lib/raw-reader.mjs; a setTimeout loop that only sends what is due, Poisson
 * arrivals at the same rate) in the same process, against the same server, REPS times
 * interleaved (after an unmeasured run of the minimal pacer that warms the server, goodput
 * first, then the minimal pacer, then the other way round). Reads goodput's run summary: the
 * dispatch lag p99 (sent − scheduled of every measured send) must be ≤ 1.2× the minimal
 * pacer's (medians over the repetitions) and the achieved send rate within 1 % of the scheduled
 * one. (An absolute 1 ms p99 is out of reach on a shared 2-core machine: the minimal pacer
 * misses it too.) Both lags end at the same instant: undici's call to the request's handler as
 * it begins to write the request on a connection, which goodput's records take as sent; the
 * floor's lag at its send call, a turn of the event loop earlier, is printed beside it.
 * The achieved rate is the measured requests over the span of their send times, the rate of
 * the arrival process the client actually produced; it is held against the rate of the same
 * requests' schedule (requests over the span of their scheduled times), since a seeded Poisson
 * draw of 20,000 arrivals is itself off the requested rate by ±0.7 % (one standard deviation;
 * seed 3 draws −1.06 %), which is no client's doing. The draw's own deviation is printed too.
 *
 * It also prints where the late sends (over 1 ms) come from: how many were due during one of the
 * process's garbage-collection pauses (a PerformanceObserver of 'gc' entries, placed on the
 * run's clock through the records' completion times) and, on Linux, how often the kernel took
 * the CPU from the main thread during the run, with each side's process CPU (a pacer that spins
 * pays for it in preemptions on a shared machine). GOODPUT_BENCH_WINDOWS=1 prints, for each
 * side, the lag p99/max and the GC pauses of every 100 ms of the measured phase: a start-up
 * transient (cold code, fresh histograms, GC) shows as a ramp in the first windows.
 *
 * Env: GOODPUT_BENCH_PRIME_GOODPUT (1: an unmeasured goodput run after the priming one, so that
 * every measured repetition runs in a warm process), GOODPUT_BENCH_FRESH (1: every repetition of
 * each side in a fresh node process of its own, started with the same options, as one `goodput
 * run` and one run of a minimal pacer script would be: V8 compiling each side's code as its
 * measured phase begins is then in every repetition of both, where by default goodput's first
 * repetition alone pays for its own code and undici's is warm for both), GOODPUT_BENCH_RATE
 * (default 2000), GOODPUT_BENCH_SECONDS (default 10), GOODPUT_BENCH_WARMUP (warmup requests,
 * default the seconds of the load the client-warming-up caveat advises, WARMUP_ADVICE_S: 2 s),
 * GOODPUT_BENCH_REPS (default 3), GOODPUT_BENCH_REALTIME (a SCHED_FIFO priority, 1–99, for
 * the main thread alone, set with util-linux `chrt`; needs root or CAP_SYS_NICE). The last one is a diagnosis, not a setting of goodput's: it shows how much of
 * the lag is the kernel handing the CPU to other threads (the server's, V8's) rather than the
 * client's own work. V8 flags go on node's command line, e.g.
 * `GOODPUT_BENCH_REALTIME=10 node --single-threaded-gc --no-allocation-site-pretenuring
 * --max-semi-space-size=8 bench/open-loop-pacing.bench.mjs`.
 *
 * goodput runs in this process, so the bench first starts itself again in a node with the
 * options the `goodput` command gives node on this machine (bin/goodput.js's heap flag, and one
 * V8 background thread on ≤ 2 cores; bench/lib/cli-node-flags.mjs runs its sh lines), unless it has them: it measures goodput as users start it.
 * The minimal pacer shares the process, so it runs with them too.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { benchmarkConfig, runBenchmark } from '../dist/index.js';
import { WARMUP_ADVICE_S } from '../dist/metrics/index.js';
import { asTheCliStartsNode } from './lib/cli-node-flags.mjs';
import { createRawReader } from './lib/raw-reader.mjs';
import { startStreamServer } from './lib/stream-server.mjs';

const nodeFlags = asTheCliStartsNode(fileURLToPath(import.meta.url));
const RATE = Number(process.env.GOODPUT_BENCH_RATE ?? 2000);
const SECONDS = Number(process.env.GOODPUT_BENCH_SECONDS ?? 10);
/** A send later than this counts as late in the printed breakdown (ms). */
const LATE_MS = 1;
/** goodput's dispatch-lag p99 ÷ the minimal pacer's, at most. */
const LAG_RATIO = 1.2;
const REPS = Number(process.env.GOODPUT_BENCH_REPS ?? 3);
const RATE_TOLERANCE = 0.01;
const WARMUP = Number(process.env.GOODPUT_BENCH_WARMUP ?? WARMUP_ADVICE_S * RATE);
const FRESH = process.env.GOODPUT_BENCH_FRESH === '1';
/** Starts the line on which a side's process hands its result to the bench (GOODPUT_BENCH_FRESH). */
const RESULT_MARK = 'open-loop-pacing side result: ';

// `--side goodput|minimal <server url> <repetition>`: this process is one repetition of one side,
// started by the bench in GOODPUT_BENCH_FRESH mode (freshRun), against the bench's server.
const sideAt = process.argv.indexOf('--side');
const side =
  sideAt < 0
    ? undefined
    : {
        name: process.argv[sideAt + 1],
        url: process.argv[sideAt + 2],
        rep: Number(process.argv[sideAt + 3]),
      };
const server = side
  ? { url: side.url, close: async () => undefined }
  : await startStreamServer({ mode: 'burst', chunks: 4, splits: 1 });
if (!side) {
  console.log(`  node ${nodeFlags.join(' ')} (the goodput command's options)`);
  console.log(
    `  ${availableParallelism()} cores, load average ${loadavg()[0].toFixed(1)} (the lag of both pacers is the machine's: compare them in one run, never across runs)`,
  );
  if (FRESH)
    console.log('  every repetition of each side in a fresh process of its own (GOODPUT_BENCH_FRESH)');
}
const realtime = process.env.GOODPUT_BENCH_REALTIME;
// In fresh mode the sides' processes send: each sets its own main thread.
if (realtime && (side || !FRESH)) {
  // After the server's child process is spawned, so that it keeps the normal policy.
  try {
    execFileSync('chrt', ['-f', '-p', realtime, String(process.pid)], { stdio: 'pipe' });
    console.log(`  main thread at SCHED_FIFO priority ${realtime}`);
  } catch (e) {
    console.log(`  GOODPUT_BENCH_REALTIME ignored: chrt failed (${String(e.stderr ?? e.message).trim()})`);
  }
}
/** Every GC pause of this process: performance.now() of its start, and its length. */
const pauses = [];
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push({ startMs: e.startTime, durationMs: e.duration });
});
gcObserver.observe({ entryTypes: ['gc'] });
const cwd = mkdtempSync(join(tmpdir(), 'goodput-pacing-'));
let failed = false;
try {
  if (side) {
    const result = side.name === 'goodput' ? await goodputRun(side.rep) : await minimalRun(side.rep);
    console.log(`${RESULT_MARK}${JSON.stringify(result)}`);
  } else await compare();
} finally {
  gcObserver.disconnect();
  await server.close();
  rmSync(cwd, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;

/** The repetitions of both sides, interleaved, and the verdict. */
async function compare() {
  const run = FRESH ? freshRun : (name, rep) => (name === 'goodput' ? goodputRun(rep) : minimalRun(rep));
  const goodput = [];
  const minimal = [];
  // Primes the server's child process (its JIT) and undici's code in this process with an
  // unmeasured run of the minimal pacer, so that neither side's first repetition pays the
  // server's start-up. (goodput's first repetition still lags 2–3× its later ones: that is its
  // own fresh process, which GOODPUT_BENCH_PRIME_GOODPUT below sets apart. In fresh mode the
  // priming run warms the server alone: every measured side runs in a process of its own.)
  await run('minimal', REPS);
  // GOODPUT_BENCH_PRIME_GOODPUT=1 also runs goodput once, unmeasured: its later repetitions
  // then show the lag of a warm process, the first one a fresh process's (a diagnosis).
  if (process.env.GOODPUT_BENCH_PRIME_GOODPUT && !FRESH) await goodputRun(REPS);
  for (let rep = 0; rep < REPS; rep++) {
    // Alternate which side goes first, so neither always runs after the other.
    for (const side of rep % 2 === 0 ? ['goodput', 'minimal'] : ['minimal', 'goodput']) {
      if (side === 'goodput') {
        const g = await run('goodput', rep);
        console.log(`  goodput  #${rep + 1}: ${describe(g)}`);
        goodput.push(g);
      } else {
        const m = await run('minimal', rep);
        console.log(`  minimal  #${rep + 1}: ${describe(m)}`);
        minimal.push(m);
      }
    }
  }
  const p99 = median(goodput.map((r) => r.p99));
  const floor = median(minimal.map((r) => r.p99));
  const rates = goodput.map((r) => r.achieved / r.scheduled);
  const rateOk = rates.every((r) => Math.abs(r - 1) <= RATE_TOLERANCE);
  const lagOk = p99 <= LAG_RATIO * floor;
  const pct = (r) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(2)} %`;
  console.log(
    `dispatch lag p99 @${RATE} req/s on ${availableParallelism()} cores, goodput ÷ minimal pacer: ${(p99 / floor).toFixed(2)} (${p99.toFixed(3)} ms ÷ ${floor.toFixed(3)} ms, medians of ${REPS}; per repetition ${goodput.map((g, k) => (g.p99 / minimal[k].p99).toFixed(2)).join(', ')}; target <= ${LAG_RATIO}: ${lagOk ? 'met' : 'MISSED'}; against the floor's lag at its send call ${(p99 / median(minimal.map((r) => r.callP99))).toFixed(2)})`,
  );
  console.log(
    `send rate error (achieved ÷ scheduled − 1) @${RATE} req/s: goodput ${rates.map(pct).join(', ')} (target within ±${RATE_TOLERANCE * 100} %: ${rateOk ? 'met' : 'MISSED'}); minimal pacer ${minimal.map((r) => pct(r.achieved / r.scheduled)).join(', ')}; the seeded schedules themselves (scheduled ÷ requested − 1): goodput ${goodput.map((r) => pct(r.scheduled / RATE)).join(', ')}, minimal ${minimal.map((r) => pct(r.scheduled / RATE)).join(', ')}`,
  );
  console.log(
    `GC pauses in the measured phase (this process's gc entries), goodput / minimal pacer (medians): ${median(goodput.map((r) => r.gc.count))} / ${median(minimal.map((r) => r.gc.count))} pauses, ${median(goodput.map((r) => r.gc.totalMs)).toFixed(0)} / ${median(minimal.map((r) => r.gc.totalMs)).toFixed(0)} ms in all, longest ${median(goodput.map((r) => r.gc.longestMs)).toFixed(1)} / ${median(minimal.map((r) => r.gc.longestMs)).toFixed(1)} ms; goodput's own self-check (summary.load.gcPauses): ${goodput.map((r) => r.selfGc ?? 'none').join(', ')}`,
  );
  console.log(
    `process CPU over the phase, goodput / minimal pacer (medians): ${(100 * median(goodput.map((r) => r.cpu))).toFixed(0)} / ${(100 * median(minimal.map((r) => r.cpu))).toFixed(0)} % of one core (both include the warmup; goodput's also its set-up and summary)`,
  );
  failed = !lagOk || !rateOk;
}

/**
 * One repetition of one side in a fresh node process (GOODPUT_BENCH_FRESH): this bench started
 * again with node's options as this process has them and `--side`, against this bench's server.
 * Its printed lines pass through; its result comes back on the line that starts with RESULT_MARK.
 */
function freshRun(name, rep) {
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--side', name, server.url, String(rep)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    out += text;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const lines = out.split('\n');
      const result = lines.find((l) => l.startsWith(RESULT_MARK));
      for (const l of lines) if (l && !l.startsWith(RESULT_MARK)) console.log(l);
      if (code !== 0 || !result)
        reject(new Error(`the ${name} side's process exited with ${code} and no result`));
      else resolve(JSON.parse(result.slice(RESULT_MARK.length)));
    });
  });
}

/** goodput's open loop, through runBenchmark: its own lag figures, and the breakdown of the late sends. */
async function goodputRun(rep) {
  const config = benchmarkConfig({
    url: server.url,
    model: 'bench-model',
    seed: rep + 1,
    // A warmup first, as the run's own client-warming-up caveat asks for at this rate: a fresh
    // process runs its first requests in V8's interpreter, late by tens of milliseconds, and
    // compiles its hot path over its first seconds of load (with 0.5 s of warmup its first
    // measured second still lags 2–4× the rest); that start-up is not pacing. The warmup
    // arrives at the rate, on the open loop's own code, and the measured arrivals follow it
    // without a pause (runner/load.ts); the floor's warmup is the same.
    load: { mode: 'open', rate: RATE, durationMs: SECONDS * 1000, maxRetries: 0, warmup: WARMUP },
    sampling: { maxTokens: 4 },
    workload: { promptTokens: 16 },
    serverMetrics: { enabled: false },
    outDir: join(cwd, `run-${rep}`),
  });
  // performance.now() − run clock: a record is handed over just after its endMs, so the least
  // difference seen places the run's clock on performance.now() within microseconds.
  let clockOffset = Number.POSITIVE_INFINITY;
  const onRecord = (r) => {
    clockOffset = Math.min(clockOffset, performance.now() - r.endMs);
  };
  const switches0 = involuntarySwitches();
  const queued0 = runQueueWaitMs();
  const cpu0 = cpuNow();
  const { summary, dir } = await runBenchmark(config, { cwd, quiet: true, onRecord });
  const cpu = cpuNow().since(cpu0);
  const switches = involuntarySwitches() - switches0;
  const queuedMs = runQueueWaitMs() - queued0;
  const lag = summary.load.dispatchLag;
  // Sent and scheduled times of every measured request, from the run's own records.
  const lines = readFileSync(join(dir, 'requests.jsonl'), 'utf8').trim().split('\n').slice(1);
  const records = lines.map((l) => JSON.parse(l)).filter((r) => !r.warmup && r.scheduledMs !== undefined);
  const sends = records.map((r) => ({
    scheduledMs: r.scheduledMs + clockOffset,
    sentMs: (r.firstSentMs ?? r.sentMs) + clockOffset,
  }));
  return {
    ...measure(sends, records.filter((r) => r.outcome === 'error').length),
    p50: lag.p50,
    p99: lag.p99,
    max: lag.max,
    switches,
    queuedMs,
    cpu,
    selfGc: summary.load.gcPauses
      ? `${summary.load.gcPauses.count} pauses, ${summary.load.gcPauses.totalMs.toFixed(0)} ms`
      : undefined,
    selfCheck: `${summary.load.clientBound ? `client-bound (${summary.load.clientBoundReason ?? ''})` : 'not client-bound'}${gcOf(summary.load.gcPauses)}${startOf(summary)}`,
  };
}

/**
 * The floor: the raw reader, sent by a timer loop that does nothing else. Its lag is taken as
 * goodput's is (the summary's dispatch lag: the record's sent − scheduled): from the scheduled
 * instant to undici's call as it begins to write the request on a connection (`onConnect`;
 * goodput's client takes its sent time in the same call, `onRequestStart`). Both sides hand a
 * request to the same undici, which writes a request on a kept-alive connection only after a
 * turn of the event loop (its check for bytes the server sent while the connection was idle):
 * that turn, and whatever the process does before it, is in the lag of both. The lag at the
 * floor's send call (sent before undici's turn) is printed beside it.
 */
async function minimalRun(rep) {
  const reader = createRawReader(server.url, null);
  const body = JSON.stringify({
    model: 'bench-model',
    messages: [
      { role: 'user', content: 'hello there, a short prompt of about sixteen tokens or so for pacing' },
    ],
    max_tokens: 4,
    stream: true,
  });
  // Poisson arrivals at RATE, seeded: the warmup's WARMUP first, as goodput's open loop sends
  // its warmup (on the load's own schedule, the measured arrivals straight after, while the
  // warmup's requests are still in flight), then SECONDS of measured ones.
  const random = mulberry32(1000 + rep);
  const gap = () => (-Math.log(1 - random()) / RATE) * 1000;
  const arrivals = [];
  let at = 0;
  for (let k = 0; k < WARMUP; k++, at += gap()) arrivals.push(at);
  const measuredStart = at;
  for (; at < measuredStart + SECONDS * 1000; at += gap()) arrivals.push(at);
  let errors = 0;
  // Send calls, and undici's start of each request's write (0: never written). Preallocated,
  // with no list of promises: the floor keeps nothing per request that its garbage collector
  // would have to walk.
  const sentAt = new Float64Array(arrivals.length);
  const writtenAt = new Float64Array(arrivals.length);
  const one = (k) =>
    reader
      .send(body, (ms) => {
        writtenAt[k] = ms;
      })
      .catch(() => {
        if (k >= WARMUP) errors++;
      });
  // CPU and preemptions counted from here, as goodput's are from the start of its run.
  const switches0 = involuntarySwitches();
  const queued0 = runQueueWaitMs();
  const cpu0 = cpuNow();
  const t0 = performance.now() + 5;
  let open = 0;
  let allSent = false;
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  const ended = () => {
    open--;
    if (allSent && open === 0) done();
  };
  // As goodput's measured start: a warmup that fell behind hands on no backlog, the measured
  // arrivals move to when its last request is out.
  let shift = 0;
  const dueAt = (k) => t0 + arrivals[k] + (k >= WARMUP ? shift : 0);
  let i = 0;
  const tick = () => {
    while (i < arrivals.length && dueAt(i) <= performance.now()) {
      sentAt[i] = performance.now();
      open++;
      one(i++).then(ended);
      if (i === WARMUP) shift = Math.max(0, performance.now() - dueAt(WARMUP));
    }
    if (i < arrivals.length) setTimeout(tick, dueAt(i) - performance.now());
    else {
      allSent = true;
      if (open === 0) done();
    }
  };
  setTimeout(tick, 5);
  await finished;
  const cpu = cpuNow().since(cpu0);
  const switches = involuntarySwitches() - switches0;
  const queuedMs = runQueueWaitMs() - queued0;
  await reader.close();
  const measured = arrivals.slice(WARMUP).map((_, k) => WARMUP + k);
  const sends = measured.map((k) => ({ scheduledMs: dueAt(k), sentMs: writtenAt[k] || sentAt[k] }));
  const lags = sends.map((s) => s.sentMs - s.scheduledMs).sort((a, b) => a - b);
  const callLags = measured.map((k) => sentAt[k] - dueAt(k)).sort((a, b) => a - b);
  return {
    ...measure(sends, errors),
    p50: percentile(lags, 0.5),
    p99: percentile(lags, 0.99),
    callP99: percentile(callLags, 0.99),
    max: lags[lags.length - 1],
    switches,
    queuedMs,
    cpu,
  };
}

/** Rate, late sends and the GC pauses of a measured phase, from its sends (performance.now() times). */
function measure(sends, errors) {
  const sent = sends.map((s) => s.sentMs).sort((a, b) => a - b);
  const achieved = (sent.length - 1) / ((sent[sent.length - 1] - sent[0]) / 1000);
  const first = Math.min(...sends.map((s) => s.scheduledMs));
  const last = Math.max(...sends.map((s) => s.scheduledMs));
  const scheduled = (sends.length - 1) / ((last - first) / 1000);
  const inPhase = pauses.filter((p) => p.startMs + p.durationMs >= first && p.startMs <= last);
  const late = sends.filter((s) => s.sentMs - s.scheduledMs > LATE_MS);
  const duringGc = late.filter((s) =>
    inPhase.some((p) => s.scheduledMs >= p.startMs - LATE_MS && s.scheduledMs <= p.startMs + p.durationMs),
  ).length;
  if (process.env.GOODPUT_BENCH_WINDOWS) printWindows(sends, first, inPhase);
  return {
    requests: sends.length,
    errors,
    achieved,
    scheduled,
    late: late.length,
    duringGc,
    gc: {
      count: inPhase.length,
      totalMs: inPhase.reduce((a, p) => a + p.durationMs, 0),
      longestMs: Math.max(0, ...inPhase.map((p) => p.durationMs)),
    },
  };
}

/** Diagnosis (GOODPUT_BENCH_WINDOWS=1): lag p99/max and GC per 100 ms window of the measured phase. */
function printWindows(sends, first, inPhase) {
  const windows = new Map();
  for (const s of sends) {
    const w = Math.floor((s.scheduledMs - first) / 100);
    if (!windows.has(w)) windows.set(w, []);
    windows.get(w).push(s.sentMs - s.scheduledMs);
  }
  const rows = [];
  for (const [w, lags] of [...windows].sort((a, b) => a[0] - b[0])) {
    lags.sort((a, b) => a - b);
    const from = first + w * 100;
    const gc = inPhase.filter((p) => p.startMs < from + 100 && p.startMs + p.durationMs >= from);
    rows.push(
      `${w}:${percentile(lags, 0.99).toFixed(1)}/${lags[lags.length - 1].toFixed(1)}${gc.length ? `[gc${gc.length}:${gc.reduce((a, p) => a + p.durationMs, 0).toFixed(0)}]` : ''}`,
    );
  }
  console.log(`    windows (100 ms: p99/max ms [gc count:ms]): ${rows.join(' ')}`);
}

function describe(r) {
  return `${r.requests} requests (${r.errors} errors), rate ${(r.achieved / r.scheduled).toFixed(4)} of the schedule's; dispatch lag p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms, max ${r.max.toFixed(1)} ms${r.callP99 === undefined ? '' : ` (at the send call: p99 ${r.callP99.toFixed(3)} ms)`}; late by over ${LATE_MS} ms: ${r.late} (${((100 * r.late) / r.requests).toFixed(2)} %), ${r.duringGc} due during a GC pause; GC: ${r.gc.count} pauses, ${r.gc.totalMs.toFixed(0)} ms, longest ${r.gc.longestMs.toFixed(1)} ms; process CPU ${(100 * r.cpu).toFixed(0)} %${r.switches === undefined ? '' : `; main thread preempted ${r.switches} times`}${Number.isFinite(r.queuedMs) ? `, ${r.queuedMs.toFixed(0)} ms runnable but waiting for a core` : ''}${r.selfCheck ? `; self-check: ${r.selfCheck}` : ''}`;
}

/** The run's own GC figures (summary.load.gcPauses, the client self-check), when it has them. */
/** The run's start window (its first second's lag against the rest) and whether it is a caveat. */
function startOf(summary) {
  const w = summary.load.startWindow;
  if (!w) return '';
  const warming = summary.caveats?.some((c) => c.id === 'client-warming-up');
  return `, first second p99 ${w.p99Ms.toFixed(1)} ms against ${w.laterP99Ms.toFixed(1)} ms after (${warming ? 'client-warming-up caveat' : 'no caveat'})`;
}

function gcOf(gc) {
  return gc
    ? `, GC pauses ${gc.count} (${gc.totalMs.toFixed(0)} ms in all, p99 ${gc.p99Ms.toFixed(1)} ms, longest ${gc.maxMs.toFixed(1)} ms)`
    : '';
}

function percentile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** This process's CPU time and the wall clock now; `since(earlier)` is the CPU share between them (1 = one core). */
function cpuNow() {
  const at = { cpu: process.cpuUsage(), wall: performance.now() };
  return {
    ...at,
    since: (from) => {
      const used = process.cpuUsage(from.cpu);
      return (used.user + used.system) / 1000 / (at.wall - from.wall);
    },
  };
}

/**
 * How long the main thread has waited on the run queue so far (ms; Linux schedstat, NaN
 * elsewhere): runnable but not running, the time the machine, not the client's own work, held
 * it back.
 */
function runQueueWaitMs() {
  try {
    const [, waitNs] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').trim().split(/\s+/);
    return Number(waitNs) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** The main thread's involuntary context switches so far (Linux), else undefined. */
function involuntarySwitches() {
  try {
    const status = readFileSync(`/proc/self/task/${process.pid}/status`, 'utf8');
    const m = /^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
