/**
 * Building prompts at scale (issue 30): 100,000 synthetic prompts of 8,192 tokens each (about
 * 5.5 GB of text in all), generated one at a time by the workload as a run asks for them and
 * let go once used, never held. Prints the core count, the wall and CPU time, prompts/s and tokens/s, and
 * the peak RSS against the RSS before the first prompt; fails when the peak exceeds the
 * baseline by more than 64 MB (memory bounded: a held prompt set would need gigabytes). After
 * the timed loop, a few prompts are counted with the full o200k_base tokenizer (8,192 each).
 *
 * PROMPTS_BENCH_COUNT=N builds N prompts instead.
 */

import { cpus } from 'node:os';
import { createTokenizer, createWorkload } from '../dist/workload/index.js';

const COUNT = Number(process.env.PROMPTS_BENCH_COUNT ?? 100_000);
const TOKENS = 8192;
const BOUND_MB = 64;

const mb = (bytes) => bytes / 2 ** 20;
const workload = createWorkload(
  { kind: 'synthetic', api: 'chat', promptTokens: TOKENS, maxTokens: 16, tokenizer: 'o200k_base' },
  { seed: 42, warmup: 0, requests: COUNT },
);
workload.item(0);
globalThis.gc?.();
const before = mb(process.memoryUsage().rss);
let peak = before;
let chars = 0;
const started = performance.now();
const cpu0 = process.cpuUsage();
for (let i = 0; i < COUNT; i++) {
  const item = workload.item(i);
  chars += item.messages[0].content.length;
  if (i % 1000 === 0) peak = Math.max(peak, mb(process.memoryUsage().rss));
}
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
peak = Math.max(peak, mb(process.memoryUsage().rss), mb(process.resourceUsage().maxRSS * 1024));

const tokenizer = createTokenizer('o200k_base');
const checked = [0, 1, Math.floor(COUNT / 2), COUNT - 1];
const wrong = checked.filter((i) => tokenizer.count(workload.item(i).messages[0].content) !== TOKENS);

console.log(
  `${cpus().length} cores; ${COUNT.toLocaleString('en-US')} prompts of ${TOKENS} tokens (${(chars / 1e9).toFixed(2)} GB of text) in ${seconds.toFixed(1)} s: ` +
    `${(COUNT / seconds).toFixed(0)} prompts/s, ${((COUNT * TOKENS) / seconds / 1e6).toFixed(1)} M tokens/s; ` +
    `${cpuSeconds.toFixed(1)} s of CPU (${(COUNT / cpuSeconds).toFixed(0)} prompts per CPU second: the machine is shared)`,
);
console.log(
  `     rss before ${before.toFixed(1)} MB, peak ${peak.toFixed(1)} MB while building (+${(peak - before).toFixed(1)} MB); ` +
    `prompts ${checked.join(', ')} counted with o200k_base: ${wrong.length === 0 ? `${TOKENS} each` : `wrong at ${wrong.join(', ')}`}`,
);
const ok = peak - before <= BOUND_MB && wrong.length === 0;
console.log(
  `${ok ? 'ok  ' : 'FAIL'} peak RSS while building ${(peak - before).toFixed(1)} MB above the start (bound ${BOUND_MB} MB)`,
);
process.exit(ok ? 0 : 1);
