/**
 * The exporter's series exist from the first scrape (issue 15.4): before any round, every
 * outcome, every error code, both round validities and every latency histogram of a declared
 * target are exposed at zero, so `increase(goodput_request_errors_total[…])` sees the first
 * error; measured gauges stay absent until a round sets them. And `--metrics-host` reaches
 * the socket, with a bad address a usage error naming the fix.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { runCliInProcess } from '../../test/helpers/cli.js';
import { REQUEST_ERRORS } from '../errors.js';
import { WatchExporter } from './exporter.js';

const dir = mkdtempSync(join(tmpdir(), 'goodput-exporter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let exporter: WatchExporter | undefined;
afterEach(async () => {
  await exporter?.close();
  exporter = undefined;
});

/** The value of one sample line of the exposition, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('WatchExporter before the first round', () => {
  test('every counter and histogram series of a declared target is there at zero', async () => {
    exporter = new WatchExporter();
    exporter.declareTarget('a', 'm');
    const text = await exporter.metrics();
    const l = 'target="a",model="m"';
    for (const code of Object.keys(REQUEST_ERRORS)) {
      expect(sample(text, `goodput_request_errors_total{${l},code="${code}"}`), code).toBe(0);
    }
    for (const outcome of ['success', 'error', 'cancelled']) {
      expect(sample(text, `goodput_requests_total{${l},outcome="${outcome}"}`), outcome).toBe(0);
    }
    expect(sample(text, `goodput_rounds_total{${l},valid="true"}`)).toBe(0);
    expect(sample(text, `goodput_rounds_total{${l},valid="false"}`)).toBe(0);
    expect(sample(text, `goodput_rollbacks_total{${l}}`)).toBe(0);
    for (const h of ['ttft', 'tpot', 'itl', 'e2el']) {
      expect(sample(text, `goodput_${h}_seconds_count{${l}}`), h).toBe(0);
      expect(sample(text, `goodput_${h}_seconds_bucket{le="+Inf",${l}}`), h).toBe(0);
    }
    // No honest zero for a measurement: an attainment of 0 would fire alerts before round 1.
    expect(text).not.toMatch(/^goodput_slo_attainment_ratio\{/m);
    expect(text).not.toMatch(/^goodput_last_round_timestamp_seconds\{/m);
    // A target without a GPU exporter has no GPU failure series; one with it starts at 0.
    expect(text).not.toMatch(/^goodput_gpu_scrape_failures_total\{/m);
    exporter.declareTarget('g', 'm', { gpu: true });
    expect(sample(await exporter.metrics(), 'goodput_gpu_scrape_failures_total{target="g",model="m"}')).toBe(
      0,
    );
  });

  test('the first error moves an existing series from 0 to 1', async () => {
    exporter = new WatchExporter();
    exporter.declareTarget('a', 'm');
    exporter.countRequest('a', 'm', 'error', 'TIMEOUT');
    exporter.observeLatency('a', 'm', 'ttft', 30);
    const text = await exporter.metrics();
    expect(sample(text, 'goodput_request_errors_total{target="a",model="m",code="TIMEOUT"}')).toBe(1);
    expect(sample(text, 'goodput_request_errors_total{target="a",model="m",code="BAD_SSE"}')).toBe(0);
    expect(sample(text, 'goodput_ttft_seconds_count{target="a",model="m"}')).toBe(1);
    expect(sample(text, 'goodput_tpot_seconds_count{target="a",model="m"}')).toBe(0);
  });

  test('listens on the host it is given and serves /metrics there', async () => {
    exporter = new WatchExporter();
    exporter.declareTarget('a', 'm');
    const port = await exporter.listen(0, '127.0.0.1');
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('goodput_request_errors_total{target="a",model="m",code="TIMEOUT"} 0');
  });
});

describe('watch --metrics-host', () => {
  test('without --metrics-port, or an address not on this machine: exit 2 with the fix', async () => {
    const alone = await runCliInProcess(['watch', '--metrics-host', '0.0.0.0', '--rounds', '1'], {
      cwd: dir,
    });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--metrics-host needs --metrics-port');
    // 192.0.2.1 (TEST-NET-1) is never an address of this machine: the bind fails.
    const bad = await runCliInProcess(
      ['watch', '--metrics-port', '0', '--metrics-host', '192.0.2.1', '--rounds', '1'],
      { cwd: dir },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cannot listen on 192.0.2.1:0');
    expect(bad.stderr).toContain('--metrics-host must be an address of this machine');
  }, 30_000);

  test('help says what 0.0.0.0 exposes', async () => {
    const help = await runCliInProcess(['watch', '--help'], { cwd: dir });
    expect(help.stdout).toMatch(/--metrics-host[\s\S]*0\.0\.0\.0[\s\S]*whole network/);
  });
});
