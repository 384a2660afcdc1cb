/**
 * Trace replay prompts: the prompts of a 100,000-request Mooncake-style trace (hash_ids,
 * 512-token blocks, prefixes shared by groups of requests) are generated fast, exactly, and
 * in flat memory.
 *
 * 1. Speed: trace items per second (prompts composed from cached hash-block texts), and the
 *    ratio to tokenizing the same text with o200k_base (target ≥ 5×).
 * 2. Exactness: every 997th prompt counted with the real tokenizer (must be exact), and two
 *    requests sharing hash ids share exactly block × shared ids leading tokens.
 * 3. Memory: heap after the items of the first 10,000 requests and after all 100,000 (forced
 *    GC; the parsed trace is in both; target ratio ≤ 1.2: block texts live in a bounded cache,
 *    prompts are not kept).
 *
 * Exits non-zero when a target is missed.
 */

import { createRng, createTokenizer, createWorkload, parseTrace } from '../dist/workload/index.js';

let failures = 0;
const check = (ok, line) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
  if (!ok) failures++;
};
const tok = createTokenizer();
const N = 100_000;

/** 100,000 requests at ~20/s: a shared system block per group of 50, a shared document half the time, own blocks. */
function traceText() {
  const rng = createRng('trace-bench');
  const lines = [];
  let t = 0;
  let next = 1_000_000;
  for (let i = 0; i < N; i++) {
    t += Math.round(rng.gamma(1, 50));
    const ids = [rng.int(50)];
    if (rng.next() < 0.5) ids.push(1000 + rng.int(2000));
    const own = rng.int(5);
    for (let k = 0; k < own; k++) ids.push(next++);
    const input = (ids.length - 1) * 512 + 1 + rng.int(512);
    lines.push(
      JSON.stringify({ timestamp: t, input_length: input, output_length: 1 + rng.int(500), hash_ids: ids }),
    );
  }
  return lines.join('\n');
}

const trace = parseTrace(traceText(), 'bench-trace.jsonl');
const spec = { kind: 'trace', api: 'chat', maxTokens: 128, tokenizer: 'o200k_base' };
const workload = () =>
  createWorkload(spec, { seed: 1, warmup: 0, trace: { trace, blockSize: 512, timeScale: 1 } });
const text = (item) => item.messages[0].content;

// 1 + 2. speed and exactness
{
  const wl = workload();
  wl.item(0); // word pools built outside the timing
  const started = performance.now();
  let tokens = 0;
  for (let i = 0; i < N; i++) tokens += wl.item(i).promptTokens;
  const genMs = performance.now() - started;
  const perItem = genMs / N;
  const sample = Array.from({ length: 100 }, (_, k) => wl.item(k * 997));
  const encStarted = performance.now();
  let inexact = 0;
  for (const item of sample) if (tok.encode(text(item)).length !== item.promptTokens) inexact++;
  const encMsPerItem = (performance.now() - encStarted) / sample.length;
  console.log(
    `speed: ${Math.round(N / (genMs / 1000)).toLocaleString('en')} items/s (${perItem.toFixed(4)} ms/item, mean ${Math.round(tokens / N)} prompt tokens)`,
  );
  check(
    encMsPerItem / perItem >= 5,
    `generation vs o200k encode of the same text: ${(encMsPerItem / perItem).toFixed(1)}× faster (target ≥ 5×)`,
  );
  check(inexact === 0, `exactness: ${sample.length - inexact}/${sample.length} prompts exact`);
  // Two requests whose first hash id is the same (and second differs) share exactly 512 tokens.
  let a;
  let b;
  for (let i = 0; i < N && b === undefined; i++) {
    const ids = trace.hashIds.subarray(trace.hashStart[i], trace.hashStart[i + 1]);
    if (ids.length < 2 || trace.input[i] < 1024) continue;
    if (a === undefined) a = { i, ids };
    else if (ids[0] === a.ids[0] && ids[1] !== a.ids[1]) b = { i, ids };
  }
  const ta = tok.encode(text(wl.item(a.i)));
  const tb = tok.encode(text(wl.item(b.i)));
  let common = 0;
  while (ta[common] === tb[common]) common++;
  check(
    common === 512,
    `shared prefix of requests ${a.i} and ${b.i} (one hash id in common): ${common} tokens (512)`,
  );
}

// 3. memory
if (typeof globalThis.gc === 'function') {
  const wl = workload();
  const heapAfter = (n, from) => {
    for (let i = from; i < n; i++) wl.item(i);
    globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  const at10k = heapAfter(10_000, 0);
  const at100k = heapAfter(N, 10_000);
  const ratio = at100k / at10k;
  console.log(
    `memory: heap ${(at10k / 1e6).toFixed(1)} MB after 10,000 trace requests, ${(at100k / 1e6).toFixed(1)} MB after 100,000`,
  );
  check(ratio <= 1.2, `memory ratio 100k/10k: ${ratio.toFixed(3)} (target ≤ 1.2)`);
} else {
  console.log('memory: skipped (run with node --expose-gc, as bench/run.mjs does)');
}

process.exit(failures > 0 ? 1 : 0);
