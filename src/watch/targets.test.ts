import { describe, expect, it } from 'vitest';
import { GoodputError } from '../errors.js';
import { parseTargetsText } from './targets.js';

const KEY = 'key-canary-targets-0123456789';
const file = 'targets: [{ name: eu, url: "http://127.0.0.1:8000", key_env: EU_KEY }]';

describe('watch targets: keys from key_env', () => {
  it('takes the key from the variable, trimmed', () => {
    const [t] = parseTargetsText(file, 'targets.yaml', { EU_KEY: `${KEY}\n` });
    expect(t!.apiKey).toBe(KEY);
  });
  it('refuses a variable holding "Bearer <key>", naming the variable and never the key', () => {
    const err = (() => {
      try {
        parseTargetsText(file, 'targets.yaml', { EU_KEY: `Bearer ${KEY}` });
      } catch (e) {
        return e as GoodputError;
      }
    })();
    expect(err).toBeInstanceOf(GoodputError);
    expect(err!.code).toBe('E_KEY');
    expect(err!.message).toMatch(/EU_KEY starts with "Bearer "/);
    expect(`${err!.message} ${err!.hint}`).not.toContain(KEY.slice(0, 8));
  });
});

describe('watch targets: gpu_metrics_url', () => {
  const parse = (gpu: string) =>
    parseTargetsText(
      `targets: [{ name: eu, url: "http://127.0.0.1:8000", gpu_metrics_url: ${JSON.stringify(gpu)} }]`,
      'targets.yaml',
      {},
    );
  const failure = (gpu: string) => {
    try {
      parse(gpu);
    } catch (e) {
      return e as GoodputError;
    }
    throw new Error(`accepted ${gpu}`);
  };

  it.each([
    ['http://gpu-node-7:9400/metrics', 'http://gpu-node-7:9400/metrics'],
    ['http://gpu-node-7:9400', 'http://gpu-node-7:9400/metrics'],
    [' https://dcgm.example.com/federate ', 'https://dcgm.example.com/federate'],
  ])('%s is scraped as %s', (given, url) => {
    expect(parse(given)[0]!.gpuMetricsUrl).toBe(url);
  });

  it('a target without one has none', () => {
    expect(parseTargetsText(file, 'targets.yaml', { EU_KEY: KEY })[0]!.gpuMetricsUrl).toBeUndefined();
  });

  it.each([
    ['http://admin:test-canary-pw-55@gpu-node:9400/metrics', /holds credentials/],
    ['http://gpu-node:9400/metrics?token=test-canary-pw-55', /holds credentials/],
    ['ftp://gpu-node/metrics', /must be an http/],
    ['gpu-node:9400', /must be an http/],
  ])('%s is refused (E_CONFIG naming the field, no secret shown)', (given, why) => {
    const err = failure(given);
    expect(err.code).toBe('E_CONFIG');
    expect(err.message).toMatch(/targets\[0\]\.gpu_metrics_url/);
    expect(err.message).toMatch(why);
    expect(`${err.message} ${err.hint}`).not.toContain('canary-pw');
  });
});
