/**
 * Workload generation: fast enough to feed 100,000 requests, exact, and flat in memory.
 *
 * 1. Speed: synthetic items per second at 128 and 2048 prompt tokens (chat, shared system
 *    prompt of 1,000 tokens), and the ratio to tokenizing the same text with o200k_base,
 *    the cost an encode-and-check generator would pay per request (target ≥ 5×).
 * 2. Exactness: every 97th prompt counted with the real tokenizer (must be exact).
 * 3. Memory: heap after 10,000 and after 100,000 open-loop items (forced GC; target ratio
 *    ≤ 1.2: arrival times keep one checkpoint per 1,024 items, prompts are not kept).
 *
 * Exits non-zero when a target is missed.
 */

import { countPromptTokens, createTokenizer, createWorkload } from '../dist/workload/index.js';

let failures = 0;
const check = (ok, line) => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${line}`);
  if (!ok) failures++;
};
const tok = createTokenizer();
const spec = (promptTokens) => ({
  kind: 'synthetic',
  api: 'chat',
  promptTokens,
  systemPromptTokens: 1000,
  maxTokens: 128,
  tokenizer: 'o200k_base',
});

// 1 + 2. speed and exactness
for (const [promptTokens, n] of [
  [128, 100_000],
  [2048, 20_000],
]) {
  const wl = createWorkload(spec(promptTokens), { seed: 1, warmup: 0, rate: 100 });
  wl.item(0); // word pools and system prompt built outside the timing
  let inexact = 0;
  let checked = 0;
  const started = performance.now();
  for (let i = 0; i < n; i++) wl.item(i);
  const genMs = performance.now() - started;
  const sample = Array.from({ length: 200 }, (_, k) => wl.item(k * 97));
  const encStarted = performance.now();
  for (const item of sample) tok.encode(item.messages[1].content);
  const encMsPerItem = (performance.now() - encStarted) / sample.length;
  for (const item of sample) {
    checked++;
    if (countPromptTokens(item, tok) !== item.promptTokens) inexact++;
  }
  const perItem = genMs / n;
  console.log(
    `speed: ${promptTokens} tokens: ${Math.round(n / (genMs / 1000)).toLocaleString('en')} items/s (${perItem.toFixed(4)} ms/item)`,
  );
  check(
    encMsPerItem / perItem >= 5,
    `generation vs o200k encode of the same text: ${(encMsPerItem / perItem).toFixed(1)}× faster (target ≥ 5×)`,
  );
  check(inexact === 0, `exactness at ${promptTokens} tokens: ${checked - inexact}/${checked} prompts exact`);
}

// 3. memory
if (typeof globalThis.gc === 'function') {
  const wl = createWorkload(spec(512), { seed: 2, warmup: 0, rate: 1000, burstiness: 0.5 });
  const heapAfter = (n, from) => {
    for (let i = from; i < n; i++) wl.item(i);
    globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  const at10k = heapAfter(10_000, 0);
  const at100k = heapAfter(100_000, 10_000);
  const ratio = at100k / at10k;
  console.log(
    `memory: heap ${(at10k / 1e6).toFixed(1)} MB after 10,000 items, ${(at100k / 1e6).toFixed(1)} MB after 100,000`,
  );
  check(ratio <= 1.2, `memory ratio 100k/10k: ${ratio.toFixed(3)} (target ≤ 1.2)`);
} else {
  console.log('memory: skipped (run with node --expose-gc, as bench/run.mjs does)');
}

process.exit(failures > 0 ? 1 : 0);
