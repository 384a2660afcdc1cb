/**
 * Prometheus text parsing and normalisation speed.
 *
 * A synthetic vLLM exposition the size of a busy multi-engine server (8 engines × the V1
 * metric set with full histograms, about 1 MB) is parsed and normalised repeatedly:
 *
 * 1. parse+normalise time per MB ÷ 100 ms (target ≤ 1: a 1 s scrape interval spends under
 *    10 % of one core on a 1 MB page, and a typical 50 kB page costs about 5 ms);
 * 2. parse time ÷ the time of a naive regex line parser over the same text, measured side by
 *    side (informational: the real parser also unescapes labels and handles exemplars,
 *    timestamps and quoted names).
 *
 * Exits non-zero when the target is missed.
 */

import { normalizeExposition, parsePrometheusText } from '../dist/server-metrics/index.js';

function exposition(engines) {
  const lines = [];
  const model = 'meta-llama/Llama-3.1-8B-Instruct';
  const les = [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80,
  ];
  const gauge = (name, v) => {
    lines.push(`# HELP ${name} A gauge.`, `# TYPE ${name} gauge`);
    for (let e = 0; e < engines; e++) lines.push(`${name}{engine="${e}",model_name="${model}"} ${v + e}`);
  };
  const counter = (name, v) => {
    lines.push(`# HELP ${name} A counter.`, `# TYPE ${name} counter`);
    for (let e = 0; e < engines; e++)
      lines.push(`${name}_total{engine="${e}",model_name="${model}"} ${v * (e + 1)}.0`);
  };
  const histogram = (name) => {
    lines.push(`# HELP ${name} A histogram.`, `# TYPE ${name} histogram`);
    for (let e = 0; e < engines; e++) {
      let c = 0;
      for (const le of les) {
        c += 7;
        lines.push(`${name}_bucket{engine="${e}",le="${le}",model_name="${model}"} ${c}.0`);
      }
      lines.push(`${name}_bucket{engine="${e}",le="+Inf",model_name="${model}"} ${c}.0`);
      lines.push(`${name}_count{engine="${e}",model_name="${model}"} ${c}.0`);
      lines.push(`${name}_sum{engine="${e}",model_name="${model}"} ${c * 0.123}`);
    }
  };
  gauge('vllm:num_requests_running', 12);
  gauge('vllm:num_requests_waiting', 3);
  gauge('vllm:kv_cache_usage_perc', 0.5);
  for (const c of [
    'num_preemptions',
    'prompt_tokens',
    'generation_tokens',
    'prefix_cache_queries',
    'prefix_cache_hits',
  ]) {
    counter(`vllm:${c}`, 123456);
  }
  for (let h = 0; h < 40; h++) histogram(`vllm:histogram_${h}_seconds`);
  histogram('vllm:time_to_first_token_seconds');
  histogram('vllm:inter_token_latency_seconds');
  for (let e = 0; e < engines; e++) {
    lines.push(`vllm:cache_config_info{block_size="16",engine="${e}",num_gpu_blocks="2048"} 1.0`);
  }
  return `${lines.join('\n')}\n`;
}

const naive = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/;
function naiveParse(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.length === 0) continue;
    const m = naive.exec(line);
    if (m) out.push({ name: m[1], labels: m[2], value: Number(m[3]) });
  }
  return out;
}

function time(fn, rounds) {
  fn(); // warm up
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) fn();
  return (performance.now() - t0) / rounds;
}

const text = exposition(8);
const mb = Buffer.byteLength(text) / 1e6;
const rounds = 20;
let sink = 0;
const ours = time(() => {
  const parsed = parsePrometheusText(text);
  sink += normalizeExposition(parsed).values.running ?? 0;
}, rounds);
const baseline = time(() => {
  sink += naiveParse(text).length;
}, rounds);
const perMb = ours / mb;
const ok = perMb / 100 <= 1;
console.log(
  `${ok ? 'ok  ' : 'FAIL'} parse+normalise ${perMb.toFixed(1)} ms/MB ÷ 100 ms = ${(perMb / 100).toFixed(2)} (≤ 1; page ${mb.toFixed(2)} MB)`,
);
console.log(`info parse+normalise ÷ naive regex parser = ${(ours / baseline).toFixed(2)}`);
if (sink < 0) console.log(sink);
if (!ok) process.exit(1);
