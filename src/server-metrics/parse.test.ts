import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { measureStalls } from '../../test/helpers/loop-stall.js';
import { normalizeExposition } from './normalize.js';
import { parsePrometheusText, parsePrometheusTextYielding, parseSampleLine, parseValue } from './parse.js';
import { normalizeLlamaCppSlots } from './slots.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const fixture = (name: string) => readFileSync(join(fixtures, name), 'utf8');

describe('parseSampleLine', () => {
  const cases: Array<[string, string, ReturnType<typeof parseSampleLine>]> = [
    ['bare', 'up 1', { name: 'up', labels: {}, value: 1 }],
    ['colon name', 'vllm:x{a="b"} 2.5', { name: 'vllm:x', labels: { a: 'b' }, value: 2.5 }],
    ['exponent', 'x 1.2e+06', { name: 'x', labels: {}, value: 1.2e6 }],
    ['negative', 'x -3', { name: 'x', labels: {}, value: -3 }],
    ['+Inf', 'x_bucket{le="+Inf"} +Inf', { name: 'x_bucket', labels: { le: '+Inf' }, value: Infinity }],
    ['-Inf', 'x -Inf', { name: 'x', labels: {}, value: -Infinity }],
    ['timestamp', 'x 4 1700000000123', { name: 'x', labels: {}, value: 4, timestampMs: 1700000000123 }],
    [
      'escapes',
      'x{path="C:\\\\dir",q="say \\"hi\\"",nl="a\\nb"} 1',
      { name: 'x', labels: { path: 'C:\\dir', q: 'say "hi"', nl: 'a\nb' }, value: 1 },
    ],
    ['comma and brace inside value', 'x{a="1,}2"} 7', { name: 'x', labels: { a: '1,}2' }, value: 7 }],
    ['trailing comma', 'x{a="1",} 7', { name: 'x', labels: { a: '1' }, value: 7 }],
    ['spaces around =', 'x{a = "1"} 7', { name: 'x', labels: { a: '1' }, value: 7 }],
    ['empty labels', 'x{} 7', { name: 'x', labels: {}, value: 7 }],
    [
      'exemplar ignored',
      'x_bucket{le="0.5"} 10 # {trace_id="abc"} 0.3 1700000000',
      { name: 'x_bucket', labels: { le: '0.5' }, value: 10 },
    ],
    ['quoted utf-8 name', '{"my.metric",a="b"} 3', { name: 'my.metric', labels: { a: 'b' }, value: 3 }],
    ['no value', 'x', undefined],
    ['bad value', 'x abc', undefined],
    ['hex is not a value', 'x 0x10', undefined],
    ['unterminated labels', 'x{a="b" 1', undefined],
    ['unterminated string', 'x{a="b} 1', undefined],
  ];
  for (const [label, line, expected] of cases) {
    it(label, () => expect(parseSampleLine(line)).toEqual(expected));
  }
  it('NaN', () => {
    const s = parseSampleLine('x NaN');
    expect(s?.name).toBe('x');
    expect(Number.isNaN(s?.value)).toBe(true);
  });
});

describe('parseValue', () => {
  it('agrees with Number() on plain decimals', () => {
    for (const s of ['0', '1', '-1', '0.5', '.5', '1e3', '1E-3', '+7', '123456789.125']) {
      expect(parseValue(s)).toBe(Number(s));
    }
  });
  it('rejects what Number() wrongly accepts', () => {
    for (const s of ['', 'Infinity', '0x1f', 'e3']) expect(parseValue(s)).toBeUndefined();
  });
});

describe('parsePrometheusText', () => {
  it('reads HELP and TYPE, skips comments, blank and invalid lines, stops at # EOF', () => {
    const text = [
      '# HELP a_total Things \\\\ done.\\nSecond line.',
      '# TYPE a_total counter',
      '# just a comment',
      '',
      'a_total 3',
      'this is { not valid',
      '# EOF',
      'b 1',
    ].join('\n');
    const out = parsePrometheusText(text);
    expect(out.samples).toEqual([{ name: 'a_total', labels: {}, value: 3 }]);
    expect(out.types).toEqual({ a_total: 'counter' });
    expect(out.help.a_total).toBe('Things \\ done.\nSecond line.');
    expect(out.invalidLines).toBe(1);
  });

  it('handles CRLF line ends the same as LF', () => {
    const lf = fixture('vllm-v1.prom');
    const crlf = lf.replace(/\n/g, '\r\n');
    expect(parsePrometheusText(crlf)).toEqual(parsePrometheusText(lf));
  });

  it('keeps every sample line of every fixture', () => {
    for (const name of [
      'vllm-v1.prom',
      'vllm-v0.prom',
      'vllm-spec.prom',
      'sglang.prom',
      'llamacpp.prom',
      'tgi.prom',
    ]) {
      const text = fixture(name);
      const sampleLines = text.split(/\r?\n/).filter((l) => l.length > 0 && !l.startsWith('#'));
      const out = parsePrometheusText(text);
      expect(out.invalidLines, name).toBe(0);
      expect(out.samples.length, name).toBe(sampleLines.length);
    }
  });
});

describe('normalisation of real exposition texts', () => {
  it('vLLM V1: sums across engines, averages KV usage, reads the cache layout', () => {
    const { engine, values } = normalizeExposition(parsePrometheusText(fixture('vllm-v1.prom')));
    expect(engine).toBe('vllm');
    expect(values).toEqual({
      running: 12 + 10,
      waiting: 3 + 1,
      kvUsage: (0.9 + 0.7) / 2,
      preemptionsTotal: 5 + 2,
      promptTokensTotal: 120000 + 80000,
      generationTokensTotal: 45000 + 15000,
      prefixCacheQueriesTotal: 100000 + 60000,
      prefixCacheHitsTotal: 40000 + 20000,
      blockSize: 16,
      numBlocks: 2048 + 2048,
      serverTtftSecondsSum: 12.5 + 2.5,
      serverTtftCount: 100 + 50,
      serverItlSecondsSum: 60,
      serverItlCount: 3000,
    });
  });

  it('vLLM V0: old names (gpu_cache_usage_perc, time_per_output_token), NaN gauges ignored', () => {
    const { engine, values } = normalizeExposition(parsePrometheusText(fixture('vllm-v0.prom')));
    expect(engine).toBe('vllm');
    expect(values).toEqual({
      running: 64,
      waiting: 17,
      kvUsage: 0.9875,
      preemptionsTotal: 42,
      promptTokensTotal: 1.2e6,
      generationTokensTotal: 3.5e5,
      blockSize: 32,
      numBlocks: 5691,
      serverItlSecondsSum: 7000,
      serverItlCount: 350000,
    });
  });

  it('vLLM speculative decoding: drafts, draft and accepted tokens summed across engines', () => {
    const { engine, values, specAcceptedByPosition } = normalizeExposition(
      parsePrometheusText(fixture('vllm-spec.prom')),
    );
    expect(engine).toBe('vllm');
    // vllm:spec_decode_num_accepted_tokens_per_pos_total{position="k"}, both engines summed by position.
    expect(specAcceptedByPosition).toEqual([800 + 400, 600 + 300, 400 + 200]);
    // The per-position counter is a different series and must not be read as the total.
    expect(values).toEqual({
      running: 8 + 6,
      specDraftsTotal: 1000 + 500,
      specDraftTokensTotal: 3000 + 1500,
      specAcceptedTokensTotal: 1800 + 900,
    });
  });

  it('per-position acceptance: positions by label (not by line order), bare counter name, hostile labels skipped', () => {
    const perPos = (lines: string[]) =>
      normalizeExposition(parsePrometheusText(['vllm:num_requests_running 1', ...lines, ''].join('\n')))
        .specAcceptedByPosition;
    const name = 'vllm:spec_decode_num_accepted_tokens_per_pos';
    expect(perPos([`${name}_total{position="2"} 5`, `${name}_total{position="0"} 9`])).toEqual([9, 0, 5]);
    expect(perPos([`${name}{position="1"} 4`, `${name}{position="0"} 7`])).toEqual([7, 4]);
    expect(
      perPos([
        `${name}_total{position="0"} 3`,
        `${name}_total{position="-1"} 100`,
        `${name}_total{position="x"} 100`,
        `${name}_total{position="1000000000"} 100`,
        `${name}_total 100`,
      ]),
    ).toEqual([3]);
    expect(perPos([])).toBeUndefined();
    // Other engines do not speak vLLM's names.
    const sglang = normalizeExposition(
      parsePrometheusText(`sglang:num_running_reqs 1\n${name}_total{position="0"} 3\n`),
    );
    expect(sglang.specAcceptedByPosition).toBeUndefined();
  });

  it('SGLang: queue, running, token usage, cached tokens as prefix-cache hits', () => {
    const { engine, values } = normalizeExposition(parsePrometheusText(fixture('sglang.prom')));
    expect(engine).toBe('sglang');
    expect(values).toEqual({
      running: 162,
      waiting: 2826,
      kvUsage: 0.28,
      promptTokensTotal: 8.128902e6,
      generationTokensTotal: 7.557572e6,
      prefixCacheQueriesTotal: 8.128902e6,
      prefixCacheHitsTotal: 2.0e6,
      serverTtftSecondsSum: 2.3518979474117756e6,
      serverTtftCount: 11008,
      serverItlSecondsSum: 29846.5393948555,
      serverItlCount: 7.557572e6,
    });
  });

  it('SGLang ≥ 0.5.4: sglang_ prefix, used/max tokens when token_usage is absent', () => {
    const text = [
      'sglang_num_running_reqs{tp_rank="0"} 3',
      'sglang_num_running_reqs{tp_rank="1"} 4',
      'sglang_num_queue_reqs{tp_rank="0"} 2',
      'sglang_num_used_tokens{tp_rank="0"} 300',
      'sglang_max_total_num_tokens{tp_rank="0"} 1000',
    ].join('\n');
    const { engine, values } = normalizeExposition(parsePrometheusText(text));
    expect(engine).toBe('sglang');
    expect(values).toEqual({ running: 7, waiting: 2, kvUsage: 0.3 });
  });

  it('llama.cpp: processing / deferred, KV ratio, token counters (CRLF fixture)', () => {
    const text = fixture('llamacpp.prom');
    expect(text.includes('\r\n')).toBe(true);
    const { engine, values } = normalizeExposition(parsePrometheusText(text));
    expect(engine).toBe('llamacpp');
    expect(values).toEqual({
      running: 2,
      waiting: 1,
      kvUsage: 0.375,
      promptTokensTotal: 6886,
      generationTokensTotal: 3469,
    });
  });

  it('llama.cpp /slots: KV usage from tokens held by processing slots over total context', () => {
    const values = normalizeLlamaCppSlots(JSON.parse(fixture('llamacpp-slots.json')));
    expect(values).toEqual({ running: 2, kvUsage: (900 + 124 + 1500 + 524) / (4 * 4096) });
    expect(normalizeLlamaCppSlots({ error: 'no slots' })).toEqual({});
    expect(normalizeLlamaCppSlots([{ n_ctx: 100, is_processing: false }])).toEqual({
      running: 0,
      kvUsage: 0,
    });
  });

  it('TGI: queue and batch size, token totals from histogram sums', () => {
    const { engine, values } = normalizeExposition(parsePrometheusText(fixture('tgi.prom')));
    expect(engine).toBe('tgi');
    expect(values).toEqual({
      running: 24,
      waiting: 7,
      promptTokensTotal: 512000,
      generationTokensTotal: 298000,
      serverItlSecondsSum: 37.25,
      serverItlCount: 1490,
    });
  });

  it('unknown exporters give no values', () => {
    const out = normalizeExposition(parsePrometheusText('process_cpu_seconds_total 12\n'));
    expect(out).toEqual({ engine: 'unknown', values: {} });
  });
});

describe('parsePrometheusTextYielding', () => {
  const texts: Array<[string, string]> = [
    ...['vllm-v1.prom', 'dcgm.prom', 'sglang.prom', 'tgi.prom'].map((f): [string, string] => [f, fixture(f)]),
    [
      'CRLF, a bad line, # EOF in the middle',
      'a 1\r\n# TYPE a gauge\r\nnot a line{\r\nb{x="y"} 2\n# EOF\nc 3\n',
    ],
    ['no final newline', 'a 1\nb 2'],
  ];
  it.each(texts)(
    '%s: the same exposition as parsePrometheusText, whatever the slice size',
    async (_name, text) => {
      const want = parsePrometheusText(text);
      for (const slice of [1, 7, 100, 4096, 1e9])
        expect(await parsePrometheusTextYielding(text, slice)).toEqual(want);
    },
  );

  it('a page of many MiB leaves the event loop free between slices', async () => {
    const page = fixture('dcgm.prom');
    const text = page.repeat(Math.ceil((12 * 1024 * 1024) / page.length));
    const {
      result: parsed,
      tookMs: took,
      longestStallMs: maxGap,
    } = await measureStalls(() => parsePrometheusTextYielding(text));
    expect(parsed.samples.length).toBe(
      parsePrometheusText(page).samples.length * (text.length / page.length),
    );
    // One parse of the whole text would hold the loop for all of `took`.
    expect(maxGap, `longest stall ${maxGap.toFixed(0)} ms of a ${took.toFixed(0)} ms parse`).toBeLessThan(
      took / 4,
    );
  });
});
