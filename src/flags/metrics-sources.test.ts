import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GoodputError } from '../errors.js';
import { BENCHMARK_OPTIONS } from './options/index.js';
import { parseArgv } from './parse.js';
import { resolveBenchmarkConfig } from './resolve.js';
import type { CommandSpec } from './spec.js';

const spec: CommandSpec = { name: 'run', summary: '', options: BENCHMARK_OPTIONS, run: async () => 0 };
const dir = mkdtempSync(join(tmpdir(), 'goodput-metrics-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const resolve = async (argv: string[], env: Record<string, string> = {}) =>
  resolveBenchmarkConfig(parseArgv(spec, ['--url', 'http://h:8000', ...argv]), env, dir);

describe('server-metrics sources from flags and the config file', () => {
  it('--metrics-url once: one endpoint, as before; repeated: one replica each, the first the run URL', async () => {
    expect((await resolve(['--metrics-url', 'http://a:1/metrics'])).serverMetrics).toEqual({
      enabled: true,
      url: 'http://a:1/metrics',
    });
    const several = await resolve([
      '--metrics-url',
      'a=http://a:1/metrics',
      '--metrics-url',
      'http://b:1/metrics',
    ]);
    expect(several.serverMetrics).toEqual({
      enabled: true,
      url: 'http://a:1/metrics',
      replicas: ['a=http://a:1/metrics', 'http://b:1/metrics'],
    });
  });

  it("the config file's metrics_url (a list: replicas) when no flag names a source; the flag wins", async () => {
    const file = join(dir, 'settings.json');
    writeFileSync(file, JSON.stringify({ metrics_url: ['http://a:1/metrics', 'http://b:1/metrics'] }));
    expect((await resolve(['--config', file])).serverMetrics.replicas).toEqual([
      'http://a:1/metrics',
      'http://b:1/metrics',
    ]);
    const flag = await resolve(['--config', file, '--metrics-url', 'http://c:1/metrics']);
    expect(flag.serverMetrics).toEqual({ enabled: true, url: 'http://c:1/metrics' });
    const gateway = join(dir, 'gateway.json');
    writeFileSync(
      gateway,
      JSON.stringify({ provider: 'openai-compatible', metricsUrl: 'http://g:1/metrics' }),
    );
    expect((await resolve(['--config', gateway])).serverMetrics.url).toBe('http://g:1/metrics');
  });

  it('--metrics-prometheus: the selector checked, GOODPUT_PROMETHEUS_AUTH as its header and a secret', async () => {
    const config = await resolve(
      ['--metrics-prometheus', 'http://prom:9090', '--metrics-selector', 'job="vllm"'],
      { GOODPUT_PROMETHEUS_AUTH: 'Bearer tok-123456' },
    );
    expect(config.serverMetrics.prometheus).toEqual({
      url: 'http://prom:9090',
      selector: '{job="vllm"}',
      headers: { authorization: 'Bearer tok-123456' },
    });
    expect(config.secrets).toContain('Bearer tok-123456');
  });

  it.each([
    [['--metrics-prometheus', 'http://prom:9090'], /needs --metrics-selector/],
    [['--metrics-selector', '{job="x"}'], /--metrics-selector needs --metrics-prometheus/],
    [
      [
        '--metrics-prometheus',
        'http://p:9090',
        '--metrics-selector',
        '{job="x"}',
        '--metrics-url',
        'http://a/metrics',
      ],
      /both name where the server metrics come from/,
    ],
    [['--metrics-prometheus', 'prom:9090', '--metrics-selector', '{job="x"}'], /must be an http/],
    [
      ['--metrics-prometheus', 'http://p:9090', '--metrics-selector', 'up{job="x"}'],
      /not a set of label matchers/,
    ],
    [['--metrics-url', 'http://a/metrics', '--metrics-url', 'b:1/metrics'], /--metrics-url must be an http/],
  ])('%j is a usage error', async (argv, message) => {
    const e = (await resolve(argv).catch((x: unknown) => x)) as GoodputError;
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toMatch(message);
  });

  it('several replicas or Prometheus with --time virtual is a usage error', async () => {
    const e = (await resolveBenchmarkConfig(
      parseArgv(spec, ['--time', 'virtual', '--metrics-url', 'http://a/m', '--metrics-url', 'http://b/m']),
      {},
      dir,
    ).catch((x: unknown) => x)) as GoodputError;
    expect(e.message).toMatch(/with --time virtual/);
  });
});
