import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { BENCHMARK_OPTIONS } from './options/index.js';
import { parseArgv } from './parse.js';
import { resolveBenchmarkConfig } from './resolve.js';
import type { CommandSpec } from './spec.js';

const spec: CommandSpec = { name: 'run', summary: '', options: BENCHMARK_OPTIONS, run: async () => 0 };
const dir = mkdtempSync(join(tmpdir(), 'goodput-resolve-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// async: a flag out of its bounds is refused by parseArgv itself, and must reject like the rest.
const resolve = async (argv: string[], env: Record<string, string> = {}) =>
  resolveBenchmarkConfig(parseArgv(spec, argv), env, dir);

describe('resolveBenchmarkConfig load', () => {
  const cases: Array<[string, string[], Record<string, unknown>]> = [
    [
      'no load flags: the default closed loop',
      [],
      { mode: 'closed', concurrency: 8, requests: 80, warmup: 0 },
    ],
    [
      'concurrency scales the default count',
      ['-c', '32'],
      { mode: 'closed', concurrency: 32, requests: 320 },
    ],
    ['small concurrency keeps at least 80', ['-c', '2'], { concurrency: 2, requests: 80 }],
    [
      'rate: open loop, Poisson, ten seconds',
      ['--rate', '20'],
      { mode: 'open', rate: 20, burstiness: 1, requests: 200 },
    ],
    ['duration alone sets no count', ['-d', '30s'], { durationMs: 30_000, requests: undefined }],
    ['both stop rules kept', ['-n', '5', '-d', '1m'], { requests: 5, durationMs: 60_000 }],
    [
      'open loop with cap and burstiness',
      ['-r', '4', '--burstiness', '0.5', '--max-concurrency', '16'],
      { mode: 'open', burstiness: 0.5, maxConcurrency: 16, concurrency: undefined },
    ],
    [
      'timeouts and retries',
      ['--timeout', '5s', '--ttft-timeout', '800ms', '--max-retries', '3'],
      { timeoutMs: 5000, ttftTimeoutMs: 800, maxRetries: 3 },
    ],
    ['defaults for timeout and retries', [], { timeoutMs: 60_000, maxRetries: 1, ttftTimeoutMs: undefined }],
    [
      'rate inf: all at once, the default count',
      ['--rate', 'inf'],
      { mode: 'open', rate: Number.POSITIVE_INFINITY, requests: 80, maxConcurrency: undefined },
    ],
    [
      'rate inf with a count',
      ['--rate', 'Infinity', '-n', '5'],
      { rate: Number.POSITIVE_INFINITY, requests: 5 },
    ],
    [
      'max-concurrency alone caps an unlimited rate, ten per slot (as in vLLM)',
      ['--max-concurrency', '16'],
      {
        mode: 'open',
        rate: Number.POSITIVE_INFINITY,
        maxConcurrency: 16,
        concurrency: undefined,
        requests: 160,
      },
    ],
    [
      'max-concurrency alone with a duration',
      ['--max-concurrency', '4', '-d', '5s'],
      {
        mode: 'open',
        rate: Number.POSITIVE_INFINITY,
        maxConcurrency: 4,
        durationMs: 5000,
        requests: undefined,
      },
    ],
  ];
  it.each(cases)('%s', async (_name, argv, expected) => {
    const config = await resolve(argv);
    for (const [k, v] of Object.entries(expected))
      expect(config.load[k as keyof typeof config.load], k).toEqual(v);
  });
});

describe('resolveBenchmarkConfig errors', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      'closed and open loop together',
      ['-c', '4', '--rate', '2'],
      /--concurrency .* and --rate .* cannot be used together/,
    ],
    [
      'cap with a closed loop',
      ['--max-concurrency', '4', '-c', '2'],
      /--max-concurrency .* and --concurrency .* cannot be used together/,
    ],
    ['rate inf with only a duration', ['--rate', 'inf', '-d', '10s'], /--rate inf with --duration alone/],
    [
      'a source address that is no IP',
      ['--source-addresses', '127.0.0.1,myhost'],
      /expects IP addresses .* got 'myhost'/,
    ],
    ['source addresses of two families', ['--source-addresses', '127.0.0.1,::1'], /mixes IPv4 and IPv6/],
    ['zero concurrency', ['-c', '0'], /--concurrency must be at least 1/],
    ['zero rate', ['--rate', '0'], /--rate must be > 0/],
    ['zero requests', ['-n', '0'], /--requests must be at least 1/],
    [
      'cancel rate out of range',
      ['--cancel-after-ms', '100', '--cancel-rate', '1.5'],
      /--cancel-rate must be between 0 and 1/,
    ],
    ['cancel rate without a time', ['--cancel-rate', '0.5'], /--cancel-rate needs --cancel-after-ms/],
    ['range out of bounds', ['--prompt-tokens-range', '1'], /--prompt-tokens-range must be in \[0, 1\)/],
    [
      'dataset with prompt tokens',
      ['--dataset', 'x.jsonl', '--prompt-tokens', '10'],
      /--dataset and --prompt-tokens/,
    ],
    ['label without =', ['--label', 'oops'], /--label expects KEY=VALUE/],
    ['not an http url', ['--url', 'localhost:8000'], /http:\/\/ or https:\/\//],
    [
      'timeout 0',
      ['--timeout', '0'],
      /--timeout must be at least 1ms and at most 1d \(86400000 ms\), got 0ms/,
    ],
    [
      'a 100-million-token prompt',
      ['--prompt-tokens', '100000000'],
      /--prompt-tokens must be at most 2000000/,
    ],
    [
      'concurrency beyond one process',
      ['-c', '1000000'],
      /--concurrency must be at least 1 and at most 100000/,
    ],
    [
      'a port that cannot be',
      ['--url', 'http://127.0.0.1:99999'],
      /--url cannot be used: port 99999 is beyond 65535/,
    ],
    ['unknown sim profile', ['--sim-profile', 'tpu:llama-3.1-8b'], /--sim-profile: unknown GPU "tpu"/],
    [
      'sim profile with a url',
      ['--url', 'http://h:1', '--sim-profile', 'a100:llama-3.1-8b'],
      /embedded engine only/,
    ],
  ];
  it.each(cases)('%s', async (_name, argv, message) => {
    const e = await resolve(argv).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GoodputError);
    expect((e as GoodputError).message).toMatch(message);
    expect((e as GoodputError).exitCode).toBe(2);
  });
});

describe('resolveBenchmarkConfig target and workload', () => {
  it('flags override env, env overrides the config file', async () => {
    const file = join(dir, 'gateway.json');
    writeFileSync(
      file,
      JSON.stringify({
        provider: 'openai-compatible',
        baseUrl: 'http://file:1',
        apiKey: 'sk-file',
        model: 'file-model',
        timeoutMs: 1234,
        maxRetries: 4,
      }),
    );
    const fromFile = await resolve(['--config', file]);
    expect(fromFile).toMatchObject({ url: 'http://file:1', model: 'file-model', apiKey: 'sk-file' });
    expect(fromFile.load).toMatchObject({ timeoutMs: 1234, maxRetries: 4 });

    const fromEnv = await resolve(['--config', file], {
      GOODPUT_BASE_URL: 'http://env:2',
      GOODPUT_MODEL: 'env-model',
      OPENAI_API_KEY: 'sk-openai',
    });
    expect(fromEnv).toMatchObject({ url: 'http://env:2', model: 'env-model', apiKey: 'sk-openai' });

    const fromFlags = await resolve(
      ['--config', file, '--url', 'http://flag:3/', '--model', 'flag-model', '--timeout', '9s'],
      {
        GOODPUT_BASE_URL: 'http://env:2',
        GOODPUT_API_KEY: 'sk-goodput',
        OPENAI_API_KEY: 'sk-openai',
      },
    );
    expect(fromFlags).toMatchObject({ url: 'http://flag:3', model: 'flag-model', apiKey: 'sk-goodput' });
    expect(fromFlags.load.timeoutMs).toBe(9000);
  });

  it('reads the key from --api-key-file before the environment', async () => {
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, 'sk-from-file\n');
    const config = await resolve(['--api-key-file', keyFile], { GOODPUT_API_KEY: 'sk-env' });
    expect(config.apiKey).toBe('sk-from-file');
  });

  it('records sampling, workload, labels and output as given', async () => {
    const config = await resolve([
      '--prompt-tokens',
      '2048',
      '--prompt-tokens-range',
      '0.2',
      '--system-prompt-tokens',
      '4000',
      '--max-tokens',
      '64',
      '--ignore-eos',
      '--temperature',
      '0.7',
      '--top-p',
      '0.9',
      '--seed',
      '42',
      '--cancel-after-ms',
      '1500',
      '--label',
      'a=1,b=x=y',
      '--out',
      'res',
      '--slo',
      'ttft=500,e2el=5000',
      '--no-server-metrics',
    ]);
    expect(config.sampling).toEqual({
      temperature: 0.7,
      topP: 0.9,
      maxTokens: 64,
      ignoreEos: true,
      seed: 42,
    });
    expect(config.workload).toEqual({
      promptTokens: 2048,
      promptTokensRange: 0.2,
      systemPromptTokens: 4000,
      cancelAfterMs: 1500,
      cancelRate: 1,
    });
    expect(config.seed).toBe(42);
    expect(config.labels).toEqual({ a: '1', b: 'x=y' });
    expect(config.outDir).toBe(join(dir, 'res'));
    expect(config.slo).toEqual({ ttftMs: 500, e2elMs: 5000 });
    expect(config.serverMetrics).toEqual({ enabled: false });
    expect(config.url).toBeUndefined();
    expect(config.sim).toBeUndefined();
    expect((await resolve(['--sim-profile', 'a100:llama-3.1-8b'])).sim).toEqual({
      profile: 'a100:llama-3.1-8b',
    });
  });

  it('a dataset takes its output lengths unless --max-tokens is given', async () => {
    expect((await resolve(['--dataset', 'd.jsonl'])).workload).toMatchObject({
      datasetPath: join(dir, 'd.jsonl'),
      outputFromDataset: true,
    });
    expect((await resolve(['--dataset', 'd.jsonl', '--max-tokens', '32'])).workload.outputFromDataset).toBe(
      false,
    );
  });
});

describe('--source-addresses', () => {
  it('keeps the addresses on the connection setting, beside --connections', async () => {
    const config = await resolve(['--connections', 'pooled:4', '--source-addresses', '127.0.0.2, 127.0.0.3']);
    expect(config.load.connections).toEqual({
      mode: 'pooled',
      limit: 4,
      sourceAddresses: ['127.0.0.2', '127.0.0.3'],
    });
  });
});
