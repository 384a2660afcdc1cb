// Simulated engine speed: engine steps per wall second (a saturated batch of decodes and
// chunked prefills), and virtual-time speed (simulated seconds per wall second) for an open
// loop of 1,000 requests/s of 2k-token prompts, and the cost of simulating speculative decoding
// (eagle, k=3: an acceptance chain per sequence per step) as a ratio of generated tokens/s. Run after `npm run build`.
import { Engine, resolveEngineConfig, resolveProfile, simulateVirtual } from '../dist/sim/index.js';

const profile = resolveProfile('h100:llama-3.1-8b');

function stepsPerSecond(opts = {}) {
  const engine = new Engine(profile, resolveEngineConfig(profile, opts));
  const sink = { onToken() {}, onFinish() {} };
  let t = 0;
  let n = 0;
  const start = performance.now();
  while (performance.now() - start < 2000) {
    while (engine.numRunning + engine.numWaiting < 256)
      engine.add({ id: `r${n++}`, promptTokens: 1024, outputTokens: 256, finishReason: 'length', sink }, t);
    const plan = engine.plan(t);
    t += plan.durationMs;
    engine.commit(plan, t);
  }
  const wall = (performance.now() - start) / 1e3;
  return { steps: engine.counters.steps / wall, tokens: engine.counters.generationTokens / wall };
}

function virtualSpeed(seconds) {
  const reqs = Array.from({ length: seconds * 1000 }, (_, i) => ({
    arrivalMs: i,
    promptTokens: 2048,
    outputTokens: 128,
  }));
  const start = performance.now();
  const r = simulateVirtual(reqs);
  const wall = (performance.now() - start) / 1e3;
  return { simulated: r.durationMs / 1e3, wall, ratio: r.durationMs / 1e3 / wall, steps: r.counters.steps };
}

const s = stepsPerSecond();
console.log(
  `sim engine: ${s.steps.toFixed(0)} steps/s at 256 sequences (${s.tokens.toFixed(0)} generated tokens/s)`,
);
const spec = stepsPerSecond({ speculativeConfig: '{"method":"eagle","num_speculative_tokens":3}' });
console.log(
  `sim engine with speculative decoding (eagle, k=3): ${spec.tokens.toFixed(0)} generated tokens/s at 256 sequences = ${(spec.tokens / s.tokens).toFixed(2)}x without (${spec.steps.toFixed(0)} steps/s: each step emits ~2.5 tokens per sequence, so requests turn over faster)`,
);
const v = virtualSpeed(5);
console.log(
  `sim virtual time: 1000 req/s x 2048-token prompts for 5 s of arrivals: ${v.simulated.toFixed(1)} simulated s in ${v.wall.toFixed(2)} wall s = ${v.ratio.toFixed(1)} simulated s per wall s`,
);
