/**
 * OpenTelemetry export: a virtual run exports to a loopback OTLP/HTTP receiver that decodes
 * with the official protobuf definitions; the GenAI metric names, units, attributes and counts
 * agree with the run's summary, the header of OTEL_EXPORTER_OTLP_HEADERS reaches the collector
 * and nothing else (never the output, the summary or the results), and a collector that fails
 * or stalls costs the run nothing but a warning.
 */

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GEN_AI_METRICS } from '../src/otlp/index.js';
import { readSummary } from '../src/results/index.js';
import { runCliInProcess } from './helpers/cli.js';
import {
  attributesOf,
  metricsByName,
  type OtlpReceiver,
  startOtlpReceiver,
} from './helpers/otlp-receiver.js';

const work = mkdtempSync(join(tmpdir(), 'goodput-otlp-'));
const receivers: OtlpReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  rmSync(work, { recursive: true, force: true });
});

const HEADER_SECRET = 'otlp-ingest-token-5f4e3d2c1b';
const API_KEY = 'fake-llm-endpoint-key-0a1b2c3d4e';

function virtualRun(out: string, extra: string[], env: Record<string, string>) {
  return runCliInProcess(
    [
      'run',
      '--time',
      'virtual',
      '--requests',
      '24',
      '--concurrency',
      '4',
      '--prompt-tokens',
      '64',
      '--max-tokens',
      '12',
      '--out',
      out,
      '--quiet',
      ...extra,
    ],
    { cwd: work, env: { GOODPUT_API_KEY: API_KEY, ...env } },
  );
}

describe('OTLP export', () => {
  it('the receiver gets the GenAI metrics with the conventional names, units and attributes, counts equal to the summary', async () => {
    const rx = await startOtlpReceiver('ok');
    receivers.push(rx);
    const out = join(work, 'ok');
    const r = await virtualRun(out, ['--otlp-endpoint', rx.url, '--otlp-spans'], {
      OTEL_EXPORTER_OTLP_HEADERS: `x-ingest-token=${HEADER_SECRET}`,
      OTEL_SERVICE_NAME: 'bench-ci',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=staging',
    });
    expect(r.code, r.stderr).toBe(0);
    const summary = await readSummary(out);
    const metrics = metricsByName(rx.requests);

    const duration = metrics.get(GEN_AI_METRICS.duration)!;
    expect(duration.unit).toBe('s');
    const ok = duration.points.filter((p) => p.attributes['error.type'] === undefined);
    expect(ok.reduce((n, p) => n + p.count, 0)).toBe(summary.counts.completed);
    expect(ok[0]!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': summary.meta.model,
    });
    // the durations are the run's E2EL, in seconds
    const e2elSum = ok.reduce((n, p) => n + p.sum, 0);
    expect(e2elSum * 1000).toBeCloseTo(summary.latency.e2el.mean * summary.counts.completed, 0);

    const tokens = metrics.get(GEN_AI_METRICS.tokens)!;
    expect(tokens.unit).toBe('{token}');
    const sumOf = (type: string) =>
      tokens.points.filter((p) => p.attributes['gen_ai.token.type'] === type).reduce((n, p) => n + p.sum, 0);
    expect(sumOf('input')).toBe(summary.total_input_tokens);
    expect(sumOf('output')).toBe(summary.total_output_tokens);

    const ttfc = metrics.get(GEN_AI_METRICS.timeToFirstChunk)!;
    expect(ttfc.unit).toBe('s');
    expect(ttfc.points.reduce((n, p) => n + p.count, 0)).toBe(summary.latency.ttft.count);
    const tpoc = metrics.get(GEN_AI_METRICS.timePerOutputChunk)!;
    expect(tpoc.points.reduce((n, p) => n + p.count, 0)).toBe(summary.latency.itl!.count);

    // the resource: service name from OTEL_SERVICE_NAME, attributes from OTEL_RESOURCE_ATTRIBUTES
    const first = rx.requests.find((q) => q.path === '/v1/metrics')!;
    const resource = attributesOf(
      (first.body.resourceMetrics as Array<{ resource: { attributes: unknown } }>)[0]!.resource.attributes,
    );
    expect(resource).toMatchObject({
      'service.name': 'bench-ci',
      'service.version': summary.meta.tool.version,
      'deployment.environment': 'staging',
    });

    // one CLIENT span per measured request, named "chat MODEL"
    const spans = rx.requests
      .filter((q) => q.path === '/v1/traces')
      .flatMap((q) =>
        (
          q.body.resourceSpans as Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>
        ).flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
      );
    expect(spans).toHaveLength(summary.counts.attempted);
    expect(spans[0]).toMatchObject({ name: `chat ${summary.meta.model}`, kind: 'SPAN_KIND_CLIENT' });
    expect(attributesOf(spans[0]!.attributes)).toMatchObject({ 'gen_ai.request.max_tokens': 12 });

    // the collector's header arrives; the LLM key never reaches the collector, and the header
    // value is in no output and no result file
    expect(rx.requests.every((q) => q.headers['x-ingest-token'] === HEADER_SECRET)).toBe(true);
    expect(rx.requests.some((q) => q.raw.includes(API_KEY))).toBe(false);
    expect(`${r.stdout}${r.stderr}`).not.toContain(HEADER_SECRET);
    for (const f of readdirSync(out)) expect(readFileSync(join(out, f), 'utf8')).not.toContain(HEADER_SECRET);
  });

  it('a collector that fails every export: the run succeeds, and a warning says what was dropped (not the header)', async () => {
    const rx = await startOtlpReceiver('fail');
    receivers.push(rx);
    const out = join(work, 'fail');
    const r = await runCliInProcess(
      ['run', '--time', 'virtual', '--requests', '8', '--max-tokens', '4', '--out', out, '--otlp-spans'],
      {
        cwd: work,
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
          OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer ${HEADER_SECRET}`,
        },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: OTLP export to http:\/\/127\.0\.0\.1:\d+\/v1\/metrics: 1 of 1 metric exports failed/,
    );
    expect(r.stderr).toMatch(/8 of 8 spans not delivered/);
    expect(`${r.stdout}${r.stderr}`).not.toContain(HEADER_SECRET);
    expect((await readSummary(out)).counts.completed).toBe(8);
  });

  it('a collector that never answers holds the end of the run no longer than the export timeout', async () => {
    const rx = await startOtlpReceiver('stall');
    receivers.push(rx);
    const t0 = performance.now();
    const r = await runCliInProcess(
      ['run', '--time', 'virtual', '--requests', '8', '--max-tokens', '4', '--out', join(work, 'stall')],
      { cwd: work, env: { OTEL_EXPORTER_OTLP_ENDPOINT: rx.url, OTEL_EXPORTER_OTLP_TIMEOUT: '300' } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: OTLP export .*(failed|did not finish)/);
    expect(performance.now() - t0).toBeLessThan(15_000);
  });

  it("watch exports every round of every target, cumulative over the watcher's life", async () => {
    const rx = await startOtlpReceiver('ok');
    receivers.push(rx);
    const r = await runCliInProcess(
      [
        'watch',
        '--every',
        '100ms',
        '--rounds',
        '2',
        '--requests',
        '3',
        '--max-tokens',
        '4',
        '--store',
        join(work, 'watch.db'),
        '--otlp-endpoint',
        rx.url,
        '--json',
      ],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    const rounds = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind?: string; completed?: number })
      .filter((e) => e.kind === 'goodput.watch-round');
    expect(rounds).toHaveLength(2);
    const duration = metricsByName(rx.requests).get(GEN_AI_METRICS.duration)!;
    const ok = duration.points.filter((p) => p.attributes['error.type'] === undefined);
    expect(ok.reduce((n, p) => n + p.count, 0)).toBe(rounds.reduce((n, e) => n + (e.completed ?? 0), 0));
    expect(ok[0]!.attributes['server.address']).toBe('127.0.0.1');
  });

  it('a live run with a key: the collector gets the server address and port, never the key', async () => {
    const rx = await startOtlpReceiver('ok');
    receivers.push(rx);
    const out = join(work, 'live');
    const r = await runCliInProcess(
      [
        'run',
        '--requests',
        '3',
        '--max-tokens',
        '4',
        '--out',
        out,
        '--quiet',
        '--otlp-endpoint',
        rx.url,
        '--otlp-spans',
      ],
      { cwd: work, env: { GOODPUT_API_KEY: API_KEY } },
    );
    expect(r.code, r.stderr).toBe(0);
    const summary = await readSummary(out);
    const port = Number(new URL(summary.meta.target.baseUrl).port);
    const duration = metricsByName(rx.requests).get(GEN_AI_METRICS.duration)!;
    expect(duration.points[0]!.attributes).toMatchObject({
      'server.address': '127.0.0.1',
      'server.port': port,
    });
    expect(rx.requests.some((q) => q.path === '/v1/traces')).toBe(true);
    for (const q of rx.requests) {
      expect(q.raw.includes(API_KEY.slice(0, 12))).toBe(false);
      expect(JSON.stringify(q.headers)).not.toContain(API_KEY.slice(0, 12));
    }
  });

  it('refuses an endpoint that is not OTLP/HTTP, naming the fix', async () => {
    const r = await runCliInProcess(['run', '--time', 'virtual', '--otlp-endpoint', 'grpc://h:4317'], {
      cwd: work,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('port 4318');
  });
});
