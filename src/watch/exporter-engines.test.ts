/**
 * The exporter publishes no series for a figure the engine does not report (issue 26.4):
 * `goodput_server_preemptions_total 0` for llama.cpp, which has no such counter, was a false
 * zero. One fixture per engine (src/server-metrics/fixtures, each engine's documented metric
 * names), two scrapes around a round through the real parser and normaliser, then the
 * exporter as a watch round feeds it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSummary } from '../../test/helpers/rules-fixtures.js';
import { normalizeExposition, parsePrometheusText, summarizeServer } from '../server-metrics/index.js';
import type { ServerSample } from '../types.js';
import { WatchExporter } from './exporter.js';
import { serverFigures } from './round.js';

const FIXTURES = join(import.meta.dirname, '..', 'server-metrics', 'fixtures');
const L = 'target="t",model="m"';

/** The exposition after one round on an engine: scrapes before and after, then the round's end. */
async function afterRound(file: string, bump: (text: string) => string = (t) => t): Promise<string> {
  const text = readFileSync(join(FIXTURES, file), 'utf8');
  const before: ServerSample = { tMs: 0, ...normalizeExposition(parsePrometheusText(text)) };
  const after: ServerSample = { tMs: 10_000, ...normalizeExposition(parsePrometheusText(bump(text))) };
  const exporter = new WatchExporter();
  exporter.declareTarget('t', 'm');
  const server = summarizeServer([before, after], { metricsUrl: 'http://127.0.0.1:1/metrics' });
  exporter.endRound('t', 'm', {
    valid: true,
    attainment: 1,
    proberLagMs: 1,
    endedAt: 1_700_000_000_000,
    server: serverFigures(before, after),
  });
  exporter.setRoundMetrics('t', 'm', makeSummary({ server }), 1_700_000_000_000);
  return exporter.metrics();
}

const has = (text: string, series: string) => text.split('\n').some((l) => l.startsWith(series));

describe('server series per engine', () => {
  it.each([
    ['llamacpp.prom', 'llama.cpp'],
    ['tgi.prom', 'TGI'],
    ['sglang.prom', 'SGLang'],
  ])('%s (%s, no preemption counter): no preemption series, no preemptions round metric', async (file) => {
    const text = await afterRound(file);
    expect(has(text, 'goodput_server_preemptions_total{')).toBe(false);
    expect(has(text, `goodput_round_metric{${L},metric="preemptions"}`)).toBe(false);
    // What the engine does publish is there.
    expect(has(text, `goodput_server_waiting_requests{${L}}`)).toBe(true);
  });

  it('TGI publishes no KV usage: no KV gauge and no KV round metric; llama.cpp (this build) has both', async () => {
    const tgi = await afterRound('tgi.prom');
    expect(has(tgi, 'goodput_server_kv_cache_usage_ratio{')).toBe(false);
    expect(has(tgi, `goodput_round_metric{${L},metric="kv_usage_max"}`)).toBe(false);
    const llama = await afterRound('llamacpp.prom');
    expect(has(llama, `goodput_server_kv_cache_usage_ratio{${L}} 0.375`)).toBe(true);
  });

  it('vLLM publishes its counter: the series is there at 0, then counts the round’s preemptions', async () => {
    const quiet = await afterRound('vllm-v1.prom');
    expect(has(quiet, `goodput_server_preemptions_total{${L}} 0`)).toBe(true);
    expect(has(quiet, `goodput_round_metric{${L},metric="preemptions"} 0`)).toBe(true);
    const busy = await afterRound('vllm-v1.prom', (t) =>
      t.replace(/^(vllm:num_preemptions_total\{[^}]*\}) (\d+)/m, (_, name, v) => `${name} ${Number(v) + 7}`),
    );
    expect(has(busy, `goodput_server_preemptions_total{${L}} 7`)).toBe(true);
  });

  it('before any round, no target has a preemption series', async () => {
    const exporter = new WatchExporter();
    exporter.declareTarget('t', 'm');
    expect(has(await exporter.metrics(), 'goodput_server_preemptions_total{')).toBe(false);
  });
});
