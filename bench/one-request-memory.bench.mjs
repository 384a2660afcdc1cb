/**
 * Peak RSS of a one-request run (issue 30: ≤ 100 MB): `goodput run --url <loopback mock>
 * --requests 1` against `goodput --version` (the floor: Node plus the CLI's entry) and
 * `node -e 0`, each in its own process, interleaved, median of the rounds. The peak is the
 * child's own `process.resourceUsage().maxRSS`, written at exit by a preload (-r), so it counts
 * the whole run: imports, the tokenizer's tables, the request, the summary. Both goodput cases
 * start node with the options the `goodput` command gives it (bench/lib/cli-node-flags.mjs).
 *
 * Prints each case's peak RSS in MB and its ratio to the floor; exits non-zero when the
 * one-request run peaks above TARGET_MB.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliNodeFlags } from './lib/cli-node-flags.mjs';

const BIN =
  process.env.GOODPUT_BIN ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'main.js');
/** The goodput command's node options on this machine (its sh lines, run once). */
const NODE_FLAGS = cliNodeFlags();
const ROUNDS = Number(process.env.ONE_REQUEST_BENCH_ROUNDS ?? 5);
const TARGET_MB = 100;

const chunk = (delta) =>
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta }] })}\n\n`;
const body =
  chunk({ content: 'alpha ' }) +
  chunk({ content: 'beta' }) +
  `data: ${JSON.stringify({ id: 'b', choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 256, completion_tokens: 2, total_tokens: 258 } })}\n\n` +
  'data: [DONE]\n\n';
const server = createServer((req, res) => {
  if (req.url === '/v1/models') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"data":[{"id":"bench-model"}]}');
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}`;

const dir = mkdtempSync(join(tmpdir(), 'goodput-one-request-bench-'));
const preload = join(dir, 'peak.cjs');
writeFileSync(
  preload,
  `process.on('exit', () => require('node:fs').writeFileSync(process.env.PEAK_FILE, String(process.resourceUsage().maxRSS)));\n`,
);

/** Peak RSS (MB) of one child; async, so the loopback server here keeps answering. */
function peakMb(args, n) {
  const peakFile = join(dir, `peak-${n}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', preload, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, PEAK_FILE: peakFile },
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(-500)}`));
      else resolve(Number(readFileSync(peakFile, 'utf8')) / 1024);
    });
  });
}

let n = 0;
const cases = {
  'node -e 0': () => ['-e', '0'],
  'goodput --version': () => [...NODE_FLAGS, BIN, '--version'],
  'goodput run --requests 1': () => [
    ...NODE_FLAGS,
    BIN,
    'run',
    '--url',
    url,
    '--model',
    'bench-model',
    '--requests',
    '1',
    '--no-server-metrics',
    '-o',
    join(dir, `run-${n}`),
  ],
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const peaks = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
try {
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, args] of Object.entries(cases)) peaks[name].push(await peakMb(args(), n++));
  }
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

const floor = median(peaks['goodput --version']);
const run = median(peaks['goodput run --requests 1']);
for (const name of Object.keys(cases)) {
  const m = median(peaks[name]);
  console.log(
    `     ${name.padEnd(26)} peak RSS ${m.toFixed(1).padStart(6)} MB  ${(m / floor).toFixed(2)}× --version`,
  );
}
const ok = run <= TARGET_MB;
console.log(
  `${ok ? 'ok  ' : 'FAIL'} one-request run peak ${run.toFixed(1)} MB (target ≤ ${TARGET_MB} MB), ${(run - floor).toFixed(1)} MB above --version`,
);
process.exit(ok ? 0 : 1);
