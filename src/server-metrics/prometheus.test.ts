import { describe, expect, it } from 'vitest';
import { loopbacksClosedAfterEach } from '../../test/helpers/loopback.js';
import { writeEndless, writeTrickle } from '../../test/helpers/misbehave.js';
import type { GoodputError } from '../errors.js';
import { checkPrometheusSource, matrixToSamples, parseSelector, prometheusApi } from './prometheus.js';

describe('parseSelector', () => {
  it.each([
    ['{job="vllm"}', '{job="vllm"}'],
    ['job="vllm"', '{job="vllm"}'],
    [' { namespace="llm", pod=~"vllm-.*" } ', '{namespace="llm",pod=~"vllm-.*"}'],
    ['{model!="a,b",job!~"x"}', '{model!="a,b",job!~"x"}'],
    ['{path="say \\"hi\\""}', '{path="say \\"hi\\""}'],
  ])('%s → %s', (raw, want) => {
    expect(parseSelector(raw)).toBe(want);
  });

  it.each([
    ['', 'empty'],
    ['{}', 'no matcher'],
    ['vllm:num_requests_running{job="vllm"}', 'a metric name in front'],
    ['{job=vllm}', 'an unquoted value'],
    ['{job="vllm"} or up', 'more than matchers'],
  ])('refuses %s (%s) as a usage error with an example', (raw) => {
    try {
      parseSelector(raw);
      expect.unreachable();
    } catch (e) {
      expect((e as GoodputError).code).toBe('E_USAGE');
      expect((e as GoodputError).hint).toContain('{job="vllm"}');
    }
  });
});

describe('matrixToSamples', () => {
  const series = (instance: string, name: string, values: Array<[number, string]>, extra = {}) => ({
    metric: { __name__: name, job: 'vllm', instance, ...extra },
    values,
  });

  it('one instance: each step normalised as a scrape, on the run clock, no replica named', () => {
    const samples = matrixToSamples(
      {
        resultType: 'matrix',
        result: [
          series('a:8000', 'vllm:num_requests_running', [
            [100, '1'],
            [101, '3'],
          ]),
          // Two engines (data-parallel ranks) of one instance add up, as in one scrape.
          series('a:8000', 'vllm:generation_tokens_total', [[101, '10']], { engine: '0' }),
          series('a:8000', 'vllm:generation_tokens_total', [[101, '5']], { engine: '1' }),
        ],
      },
      (t) => (t - 100) * 1000,
    );
    expect(samples).toEqual([
      { tMs: 0, engine: 'vllm', values: { running: 1 } },
      { tMs: 1000, engine: 'vllm', values: { running: 3, generationTokensTotal: 15 } },
    ]);
  });

  it('several instances: one replica each, by the instance label', () => {
    const samples = matrixToSamples(
      {
        resultType: 'matrix',
        result: [
          series('b:8000', 'vllm:num_requests_waiting', [[100, '2']]),
          series('a:8000', 'vllm:num_requests_waiting', [[100, '7']]),
        ],
      },
      (t) => t,
    );
    expect(samples.map((s) => [s.replica, s.values.waiting])).toEqual([
      ['a:8000', 7],
      ['b:8000', 2],
    ]);
  });
});

describe('the Prometheus API, hostile or wrong', () => {
  const loopback = loopbacksClosedAfterEach();
  const source = (url: string) => ({ url, selector: '{job="vllm"}' });
  const refusal = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (e) {
      return e as GoodputError;
    }
    throw new Error('expected a refusal');
  };

  it('an error reply names its errorType: bad_data is the user’s (exit 2), others the server’s', async () => {
    const lb = await loopback((req, res) => {
      const bad = req.url?.includes('bad');
      res.writeHead(bad ? 400 : 503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          status: 'error',
          errorType: bad ? 'bad_data' : 'unavailable',
          error: bad ? 'parse error at char 5' : 'TSDB not ready',
        }),
      );
    });
    const bad = await refusal(prometheusApi(source(lb.url), 'bad', {}));
    expect([bad.code, bad.message]).toEqual([
      'E_USAGE',
      `Prometheus at ${lb.url} answered bad_data: parse error at char 5`,
    ]);
    expect(bad.hint).toContain('--metrics-selector');
    const down = await refusal(prometheusApi(source(lb.url), 'query', {}));
    expect([down.code, down.message]).toEqual([
      'E_UNREACHABLE',
      `Prometheus at ${lb.url} answered unavailable: TSDB not ready`,
    ]);
  });

  it('not the Prometheus API (an exporter, a web page), or 401: said so, with the fix', async () => {
    const lb = await loopback((req, res) => {
      if (req.url?.includes('secret')) res.writeHead(401).end('no');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('vllm:num_requests_running 1\n');
    });
    const page = await refusal(prometheusApi(source(lb.url), 'query', {}));
    expect(page.message).toContain('did not answer as Prometheus');
    expect(page.hint).toContain('http://prometheus:9090');
    const denied = await refusal(prometheusApi(source(lb.url), 'secret', {}));
    expect([denied.code, denied.hint]).toEqual([
      'E_USAGE',
      expect.stringContaining('GOODPUT_PROMETHEUS_AUTH'),
    ]);
  });

  it('sends the Authorization header it was given', async () => {
    const lb = await loopback((_req, res) => {
      res
        .writeHead(200)
        .end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }));
    });
    await prometheusApi({ ...source(lb.url), headers: { authorization: 'Bearer s3cret-token' } }, 'query', {
      query: 'up',
    });
    expect(lb.requests[0]!.headers.authorization).toBe('Bearer s3cret-token');
    expect(lb.requests[0]!.url).toBe('/api/v1/query?query=up');
  });

  it('a reply is bounded in bytes and in time', async () => {
    const lb = await loopback((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url?.includes('endless')) writeEndless(res);
      else writeTrickle(res, '{"status":"success"', 50);
    });
    const big = await refusal(prometheusApi(source(lb.url), 'endless', {}, { maxBytes: 1024 * 1024 }));
    expect(big.message).toContain('sent more than 1 MiB');
    const t0 = performance.now();
    const slow = await refusal(prometheusApi(source(lb.url), 'slow', {}, { timeoutMs: 300 }));
    expect(slow.message).toContain('did not finish its answer within 300 ms');
    expect(performance.now() - t0).toBeLessThan(3000);
  });

  it('a selector matching only other series (not an engine) is refused, naming what it saw', async () => {
    const lb = await loopback((_req, res) => {
      const result = ['up', 'process_cpu_seconds_total'].map((n) => ({
        metric: { __name__: n, instance: 'node:9100' },
        value: [1, '1'],
      }));
      res.writeHead(200).end(JSON.stringify({ status: 'success', data: { resultType: 'vector', result } }));
    });
    const e = await refusal(checkPrometheusSource(source(lb.url)));
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toContain(
      'matches no engine series goodput reads (seen: up, process_cpu_seconds_total)',
    );
  });
});
