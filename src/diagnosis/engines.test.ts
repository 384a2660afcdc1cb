/**
 * Engine-aware advice (issue 26.4): the knob a finding names is the engine's own flag (with
 * llama.cpp detected, `-np/--parallel`, never `--max-num-seqs`), and what the engine does not
 * publish is said so ("not published by llama.cpp"), not "no server metrics". The server
 * summaries come from each engine's Prometheus fixture through the real parser, normaliser
 * and summariser.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_PROFILES, type EngineId, engineAdvice } from '../engines/index.js';
import { normalizeExposition, parsePrometheusText, summarizeServer } from '../server-metrics/index.js';
import type { ServerSample } from '../types.js';
import { diagnose, renderFindings } from './diagnose.js';
import type { RequestObservation } from './observations.js';
import { unmeasuredLines } from './unmeasured.js';

const FIXTURES = join(import.meta.dirname, '..', 'server-metrics', 'fixtures');

/** Two scrapes of an engine's fixture, 10 s apart, summarised as a run would. */
function serverOf(file: string) {
  const scrape = normalizeExposition(parsePrometheusText(readFileSync(join(FIXTURES, file), 'utf8')));
  const samples: ServerSample[] = [0, 10_000].map((tMs) => ({ tMs, ...scrape }));
  return summarizeServer(samples, { metricsUrl: 'http://127.0.0.1:1/metrics' });
}

/** 60 requests, a queue in the second half that doubles TTFT: a queueing finding on any engine. */
function queueingRun(engine: EngineId) {
  const observations: RequestObservation[] = [];
  const samples: ServerSample[] = [];
  for (let i = 0; i < 60; i++) {
    const t = i * 1000;
    const queued = t >= 30_000;
    observations.push({
      scheduledMs: t,
      sentMs: t,
      endMs: t + 900,
      outcome: 'success',
      promptTokens: 256,
      outputTokens: 64,
      ttftMs: queued ? 400 : 50,
      tpotMs: 10,
      e2elMs: 900,
      dispatchLagMs: 0,
    });
    samples.push({ tMs: t + 100, engine, values: { waiting: queued ? 5 : 0, running: 8 } });
  }
  return { observations, samples };
}

/** Flags only one engine uses: advice for another engine must not name them. */
const OWN_FLAGS: Record<'vllm' | 'sglang' | 'llamacpp' | 'tgi' | 'trtllm', RegExp> = {
  vllm: /--max-num-seqs|--max-num-batched-tokens|--gpu-memory-utilization/,
  sglang: /--max-running-requests|--mem-fraction-static|--chunked-prefill-size/,
  llamacpp: /-np\/--parallel|--threads-http|-ub\/--ubatch-size|-c\/--ctx-size/,
  tgi: /--max-concurrent-requests|--max-batch-total-tokens|--max-batch-prefill-tokens|--max-waiting-tokens/,
  trtllm: /--max_batch_size|--max_num_tokens|--kv_cache_free_gpu_memory_fraction/,
};

describe('the knob is the engine’s own', () => {
  it.each(['vllm', 'sglang', 'llamacpp', 'tgi', 'trtllm'] as const)(
    'queueing on %s names its flags only',
    (engine) => {
      const findings = diagnose(queueingRun(engine));
      const q = findings.find((f) => f.kind === 'queueing');
      expect(q, JSON.stringify(findings)).toBeDefined();
      expect(q!.knob).toMatch(OWN_FLAGS[engine]);
      expect(q!.knob.startsWith(`${ENGINE_PROFILES[engine].label}: `)).toBe(true);
      for (const [other, flags] of Object.entries(OWN_FLAGS))
        if (other !== engine) expect(q!.knob).not.toMatch(flags);
    },
  );

  it('llama.cpp: every kind of advice names -np/-b/-ub/-c style flags, never vLLM’s', () => {
    for (const kind of [
      'queueing',
      'kv-pressure',
      'prefill-bound',
      'decode-bound',
      'scheduler-bound',
    ] as const) {
      const text = engineAdvice(kind, 'llamacpp');
      expect(text, kind).toMatch(/-np\/--parallel|-b\/--batch-size|-c\/--ctx-size/);
      expect(text, kind).not.toMatch(OWN_FLAGS.vllm);
    }
    expect(engineAdvice('prefill-bound', 'llamacpp')).toContain('--cache-reuse');
    expect(engineAdvice('queueing', 'llamacpp')).toContain('--threads-http');
  });

  it('the embedded engine speaks vLLM’s flags; an engine not detected gets every engine’s', () => {
    expect(engineAdvice('queueing', 'goodput-sim')).toMatch(/^admission: .*--max-num-seqs/);
    const unknown = engineAdvice('queueing', 'unknown');
    for (const p of Object.values(ENGINE_PROFILES))
      expect(unknown).toContain(`${p.label} ${p.advice.queueing.flags}`);
  });
});

describe('what was not measured, and why', () => {
  it('llama.cpp scraped: its missing counters are "not published by llama.cpp", not "no server metrics"', () => {
    const lines = unmeasuredLines({ server: serverOf('llamacpp.prom') });
    expect(lines[0]).toBe('Not published by llama.cpp: preemptions, prefix-cache hits.');
    expect(lines.join('\n')).not.toMatch(/no server metrics/);
    // It still publishes KV usage (this build), so KV pressure is judged on part of the evidence.
    expect(lines).toContain('Judged on part of the evidence: KV pressure.');
  });

  it('TGI lacks KV usage and preemptions: KV pressure is not judged at all', () => {
    const lines = unmeasuredLines({ server: serverOf('tgi.prom') });
    expect(lines[0]).toBe('Not published by TGI: KV-cache usage, preemptions, prefix-cache hits.');
    expect(lines).toContain('Not judged for want of them: KV pressure.');
  });

  it('vLLM publishes everything the diagnosis reads: no line', () => {
    expect(unmeasuredLines({ server: serverOf('vllm-v1.prom') })).toEqual([]);
  });

  it('no server metrics at all: one line with the flag that adds them (and llama.cpp’s --metrics)', () => {
    expect(unmeasuredLines({})).toEqual([
      'Not judged without server metrics (give --metrics-url http://HOST:PORT/metrics): queueing, KV pressure, decode-bound.',
    ]);
    expect(unmeasuredLines({}, 'llamacpp')[0]).toContain('start llama-server with --metrics');
    expect(unmeasuredLines({ meta: { target: { embedded: true } } })).toEqual([]);
  });

  it('renders below the findings, or alone under "no finding"', () => {
    const text = renderFindings([], ['Not published by llama.cpp: preemptions.']);
    expect(text).toBe('Diagnosis: no finding.\n  Not published by llama.cpp: preemptions.\n');
  });
});
