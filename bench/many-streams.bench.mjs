/**
 * Many streams at once from one process: a closed-loop `goodput run` (the library's
 * runBenchmark) with 20,000 requests in flight against a minimal loopback SSE server in a child
 * process. The server holds every stream open until all of them have arrived (or HOLD_MS), so
 * the streams are really concurrent, then streams a few chunks on each and ends it. Prints the
 * completed requests, the errors by code, the most streams the server held open at once, the
 * source addresses it saw, and the peak RSS of the client and of the server.
 *
 * What limits it on a machine: a connection takes a file descriptor on each side and a local
 * port. The soft open-file limit (`ulimit -n`) cannot be raised from Node, so when it is below
 * 20,000 + RESERVED_FILES (320) the bench runs as many streams as fit and says so (a machine with a
 * larger `ulimit -n` runs the full 20,000). The ports: one source address has the ephemeral
 * range towards the server; goodput spreads a 127.x.x.x target over 127.0.0.2… when it runs out
 * (GOODPUT_BENCH_SOURCES=N gives --source-addresses 127.0.0.1…127.0.0.N instead).
 *
 * Env: GOODPUT_BENCH_STREAMS (default 20000), GOODPUT_BENCH_SOURCES (default: none given),
 * GOODPUT_BENCH_CHUNKS (chunks per stream, default 8).
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVER_FLAG = '--many-streams-server';
/** The longest the server holds streams waiting for the rest to arrive (ms). */
const HOLD_MS = 60_000;
/**
 * File descriptors a process needs besides its streams: goodput's RESERVED_FILES (64), and on the
 * server's side the warm-up's connections (at most 256): when the warm-up overruns its budget on
 * a loaded machine the run starts on fresh connections, and the server may still hold the old
 * ones while the new ones arrive (a server out of descriptors resets the connections it cannot
 * accept).
 */
const RESERVED_FILES = 64 + 256;

if (process.argv[2] === SERVER_FLAG) runServer(Number(process.argv[3]), Number(process.argv[4]));
else await main();

async function main() {
  const { benchmarkConfig, runBenchmark } = await import('../dist/index.js');
  const asked = Number(process.env.GOODPUT_BENCH_STREAMS ?? 20_000);
  const chunks = Number(process.env.GOODPUT_BENCH_CHUNKS ?? 8);
  const sources = Number(process.env.GOODPUT_BENCH_SOURCES ?? 0);
  const limits = readLocalLimits();
  const fit = limits.openFiles === undefined ? asked : limits.openFiles - RESERVED_FILES;
  const streams = Math.min(asked, fit);
  console.log(
    `  machine: ${availableParallelism()} cores, load average ${loadavg()[0].toFixed(1)}, ulimit -n ${limits.openFiles ?? '?'}, ${limits.ports ?? '?'} ephemeral ports per source address`,
  );
  if (streams < asked) {
    console.log(
      `  ${asked} streams need ulimit -n ≥ ${asked + RESERVED_FILES} on each side: running ${streams} (the most that fit); raise the hard limit to run all`,
    );
  }
  const server = await startServer(streams, chunks);
  const cwd = mkdtempSync(join(tmpdir(), 'goodput-many-streams-'));
  let failed = false;
  try {
    const connections =
      sources > 0
        ? { mode: 'pooled', sourceAddresses: Array.from({ length: sources }, (_, i) => `127.0.0.${i + 1}`) }
        : undefined;
    const config = benchmarkConfig({
      url: server.url,
      model: 'bench-model',
      load: {
        mode: 'closed',
        concurrency: streams,
        requests: streams,
        // goodput's default: one retry of a connection that failed before any byte. With tens of
        // thousands of connects at once the server's accept queue overflows (net.core.somaxconn),
        // the kernel answers with SYN cookies, and on a starved machine some of those fail and
        // reset; the retries are counted and printed.
        maxRetries: 1,
        timeoutMs: 300_000,
        ...(connections ? { connections } : {}),
      },
      sampling: { maxTokens: chunks },
      workload: { promptTokens: 16 },
      serverMetrics: { enabled: false },
      outDir: join(cwd, 'run'),
    });
    const started = performance.now();
    const notes = [];
    const stderr = { write: (t) => notes.push(...t.trim().split('\n')) };
    const retried = new Map();
    const onRecord = (r) => {
      for (const a of r.failedAttempts ?? []) retried.set(a.error.code, (retried.get(a.error.code) ?? 0) + 1);
    };
    const overflows0 = listenOverflows();
    const { summary } = await runBenchmark(config, { cwd, stderr, progress: 'none', onRecord });
    const overflows = overflows0 === undefined ? '?' : listenOverflows() - overflows0;
    const seconds = (performance.now() - started) / 1000;
    const seen = await server.report();
    const clientRssMb = process.resourceUsage().maxRSS / 1024;
    const completed = summary.counts.completed;
    const errors = summary.errors.reduce((a, e) => a + e.count, 0);
    console.log(
      `  ${streams} streams in ${seconds.toFixed(1)} s: ${completed} completed, ${errors} errors${errors ? ` (${summary.errors.map((e) => `${e.code} × ${e.count}: ${e.example}`).join('; ')})` : ''}`,
    );
    console.log(
      `  server: ${seen.peakOpen} streams open at once, ${seen.completed} answered, from ${Object.entries(
        seen.sources,
      )
        .map(([a, n]) => `${a} × ${n}`)
        .join(', ')}; its peak RSS ${seen.rssMb.toFixed(0)} MB`,
    );
    console.log(
      `  retried: ${retried.size === 0 ? 'none' : [...retried].map(([c, n]) => `${c} × ${n}`).join(', ')} (connects the kernel's accept queues had no room for during the run, all processes: ${overflows})`,
    );
    const warm = summary.load.connectionWarmup;
    const conns = summary.load.connections;
    if (warm || conns) {
      console.log(
        `  connections: ${warm ? `warm-up ${warm.ok} of ${warm.requested} in ${warm.ms} ms${warm.reason ? ` (${warm.reason})` : ''}; ` : ''}${conns ? `${conns.peakOpen} open at once, ${conns.peakServed} served at once` : ''}`,
      );
    }
    for (const n of notes.filter((t) => /connections/.test(t))) console.log(`  goodput said: ${n}`);
    console.log(
      `${streams} concurrent streams: ${completed} completed, ${errors} errors, client peak RSS ${clientRssMb.toFixed(0)} MB (${((clientRssMb * 1024) / streams).toFixed(1)} KB per stream) (target: all complete, no error: ${errors === 0 && completed === streams && seen.peakOpen === streams ? 'met' : 'MISSED'})`,
    );
    failed = errors > 0 || completed !== streams;
  } finally {
    await server.close();
    rmSync(cwd, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

/** The server in a child process, so that its sockets count against its own file limit and CPU. */
async function startServer(streams, chunks) {
  const child = fork(fileURLToPath(import.meta.url), [SERVER_FLAG, String(streams), String(chunks)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (m) => resolve(m.port));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    report: () =>
      new Promise((resolve) => {
        child.once('message', resolve);
        child.send('report');
      }),
    close: async () => {
      child.send('close');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

function runServer(streams, chunks) {
  const chunk = (content, finish) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'bench-model', choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish }] })}\n\n`;
  const body = [];
  for (let i = 0; i < chunks; i++) body.push(chunk(` t${i}`, null));
  body.push(chunk(null, 'length'));
  body.push(
    `data: ${JSON.stringify({ id: 'c', choices: [], usage: { prompt_tokens: 16, completion_tokens: chunks, total_tokens: chunks + 16 } })}\n\ndata: [DONE]\n\n`,
  );
  let open = 0;
  let peakOpen = 0;
  let completed = 0;
  const sources = {};
  let held = [];
  const release = () => {
    const now = held;
    held = [];
    for (const res of now) stream(res);
  };
  const stream = (res) => {
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i === body.length - 1) {
        res.end(body[i]);
        completed++;
        open--;
      } else {
        res.write(body[i++]);
        setImmediate(next);
      }
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    next();
  };
  let holdTimer;
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"object":"list","data":[{"id":"bench-model"}]}');
      return;
    }
    req.resume();
    req.on('end', () => {
      const from = req.socket.remoteAddress;
      sources[from] = (sources[from] ?? 0) + 1;
      open++;
      if (open > peakOpen) peakOpen = open;
      held.push(res);
      holdTimer ??= setTimeout(release, HOLD_MS);
      if (open >= streams) {
        clearTimeout(holdTimer);
        release();
      }
    });
  });
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  server.maxRequestsPerSocket = 0;
  server.listen({ port: 0, host: '127.0.0.1', backlog: 65_535 }, () =>
    process.send({ port: server.address().port }),
  );
  process.on('message', (m) => {
    if (m === 'report') {
      process.send({ peakOpen, completed, sources, rssMb: process.resourceUsage().maxRSS / 1024 });
    } else if (m === 'close') {
      clearTimeout(holdTimer);
      server.closeAllConnections();
      server.close(() => process.exit(0));
    }
  });
}

/** The soft open-file limit and the ephemeral ports per source address, from /proc (Linux). */
function readLocalLimits() {
  const limits = {};
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (m) limits.openFiles = Number(m[1]);
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    limits.ports = Number(high) - Number(low) + 1;
  } catch {
    // not Linux
  }
  return limits;
}

/** TcpExtListenOverflows of this network namespace (Linux): connects a listen queue had no room for. */
function listenOverflows() {
  try {
    const text = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const names = text[0].split(' ');
    const values = text[1].split(' ');
    const i = names.indexOf('ListenOverflows');
    return i > 0 ? Number(values[i]) : undefined;
  } catch {
    return undefined;
  }
}
