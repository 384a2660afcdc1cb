/**
 * Energy and cost end to end: the embedded engine serves a run while a loopback DCGM exporter
 * (the repository's fixture, two GPUs) publishes an energy counter that grows with every scrape;
 * with `--cost-per-hour 2.5 --cost-per gpu` the summary carries joules per output token, output
 * tokens per joule, goodput per watt and cost per million tokens, recomputed here from the
 * summary's own inputs; the run table and the Markdown report show them; a gate threshold on
 * one of them passes or fails by its value. Without an exporter, `--gpu-power-watts` is used and
 * said to be an assumption; watch's rounds carry the same figures.
 */

import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { metric } from '../src/metrics/index.js';
import { readSummary } from '../src/results/index.js';
import { runCliInProcess } from './helpers/cli.js';
import { dcgmPage } from './helpers/dcgm-fixture.js';

let work: string;
let server: Server;
let exporterUrl: string;
let scrapes = 0;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-energy-e2e-'));
  // Each scrape adds 40 J to GPU 0 and 30 J to GPU 1 (the counter is in mJ since boot).
  server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    const n = scrapes++;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(
      dcgmPage((name, gpu) =>
        name === 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION'
          ? gpu === '0'
            ? 9e11 + 40_000 * n
            : 8e11 + 30_000 * n
          : undefined,
      ),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  exporterUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  rmSync(work, { recursive: true, force: true });
});

const RUN = ['run', '--requests', '12', '--concurrency', '2', '--prompt-tokens', '32', '--max-tokens', '16'];

describe('energy and cost per token', () => {
  it('from a DCGM energy counter and a per-GPU price: summary, run table, report and gate', async () => {
    const out = join(work, 'dcgm');
    const r = await runCliInProcess(
      [
        ...RUN,
        '--gpu-metrics-url',
        exporterUrl,
        '--scrape-interval',
        '50ms',
        '--cost-per-hour',
        '2.5',
        '--cost-per',
        'gpu',
        '--slo',
        'ttft=60000',
        '--out',
        out,
      ],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    const s = await readSummary(out);
    const gpu = s.server!.gpu!;
    const eff = s.efficiency!;
    expect(gpu.energy).toBeDefined();
    // The counter's increase over the scrapes the run kept: 70 J a scrape, both GPUs.
    expect(gpu.energy!.joules).toBeCloseTo(70 * (gpu.samples - 1), 6);
    expect(eff.gpuCount).toBe(2);
    expect(eff.gpuCountSource).toBe('dcgm');
    expect(eff.energy!.source).toBe('dcgm-energy');
    // The formulas, from the summary's own figures.
    const watts = gpu.energy!.joules / gpu.energy!.seconds;
    const joules = watts * s.duration;
    expect(eff.energy!.powerW).toBeCloseTo(watts, 9);
    expect(eff.energy!.joulesPerOutputToken).toBeCloseTo(joules / s.total_output_tokens, 9);
    expect(eff.energy!.outputTokensPerJoule).toBeCloseTo(s.total_output_tokens / joules, 9);
    expect(eff.energy!.goodputPerWatt).toBeCloseTo(s.goodput.goodOutputTokens! / s.duration / watts, 9);
    const runCost = (2.5 * 2 * s.duration) / 3600;
    expect(eff.cost!.runCost).toBeCloseTo(runCost, 12);
    expect(eff.cost!.perMillionOutputTokens).toBeCloseTo((runCost / s.total_output_tokens) * 1e6, 9);
    expect(eff.cost!.perMillionInputTokens).toBeCloseTo((runCost / s.total_input_tokens) * 1e6, 9);
    expect(eff.cost!.perMillionGoodTokens).toBeCloseTo((runCost / s.goodput.goodOutputTokens!) * 1e6, 9);
    expect(eff.assumptions).toEqual([]);
    // The catalogue reads the same figures (gate, compare, ADR, watch).
    expect(metric('joules_per_output_token').read(s)).toBe(eff.energy!.joulesPerOutputToken);
    expect(metric('cost_per_mtok').read(s)).toBe(eff.cost!.perMillionOutputTokens);
    expect(r.stdout).toMatch(/Energy and cost/);
    expect(r.stdout).toMatch(/energy per output token\s+\S+ J\/tok/);
    expect(r.stdout).toMatch(/cost per million good tokens/);

    const md = await runCliInProcess(['report', out, '--format', 'markdown'], { cwd: work });
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/### Energy and cost/);
    expect(md.stdout).toMatch(/\| goodput per watt \| \S+ good tok\/s per W \|/);
    expect(md.stdout).toMatch(/power from the DCGM exporter's energy counter/);

    // A gate on an energy figure and one on the cost: each passes or fails by its value.
    const jpt = eff.energy!.joulesPerOutputToken!;
    const cost = eff.cost!.perMillionOutputTokens!;
    const pass = await runCliInProcess(
      ['gate', '--from', out, `joules_per_output_token<${jpt * 2}`, `cost_per_mtok<${cost * 2}`],
      { cwd: work },
    );
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    const fail = await runCliInProcess(['gate', '--from', out, `joules_per_output_token<${jpt / 2}`], {
      cwd: work,
    });
    expect(fail.code).toBe(ExitCode.THRESHOLD_BREACH);
    expect(fail.stdout + fail.stderr).toMatch(/joules_per_output_token/);
    const dear = await runCliInProcess(['gate', '--from', out, `cost_per_mtok<${cost / 2}`], { cwd: work });
    expect(dear.code).toBe(ExitCode.THRESHOLD_BREACH);
    expect(dear.stdout + dear.stderr).toMatch(/cost_per_mtok/);
  });

  it('without an exporter: --gpu-power-watts is used, and said to be an assumption', async () => {
    const out = join(work, 'assumed');
    const r = await runCliInProcess(
      [
        ...RUN,
        '--gpu-power-watts',
        '350',
        '--gpu-count',
        '2',
        '--cost-per-hour',
        '12',
        '--cost-per',
        'deployment',
        '--out',
        out,
      ],
      { cwd: work },
    );
    expect(r.code, r.stderr).toBe(0);
    const s = await readSummary(out);
    const eff = s.efficiency!;
    expect(eff.energy!.source).toBe('assumed');
    expect(eff.energy!.powerW).toBe(700);
    expect(eff.energy!.joules).toBeCloseTo(700 * s.duration, 9);
    expect(eff.cost!.deploymentCostPerHour).toBe(12);
    expect(eff.assumptions).toEqual([
      'GPU power assumed, not measured: 350 W per GPU × 2 GPUs (--gpu-power-watts)',
    ]);
    expect(r.stdout).toMatch(/assumption\s+GPU power assumed, not measured: 350 W per GPU × 2 GPUs/);
    expect(r.stdout).toMatch(/--gpu-power-watts, ASSUMED/);

    // `goodput summarize` rebuilds the same block from the records (the inputs are in their header).
    unlinkSync(join(out, 'summary.json'));
    const rebuilt = await runCliInProcess(['summarize', out], { cwd: work });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect((await readSummary(out)).efficiency).toEqual(eff);

    // watch takes the same inputs: each round's figures, in its JSON line (and exporter).
    const w = await runCliInProcess(
      ['watch', '--every', '100ms', '--rounds', '1', '--requests', '2', '--max-tokens', '4', '--json'].concat(
        ['--store', join(work, 'w.db'), '--gpu-power-watts', '350', '--cost-per-hour', '2'],
      ),
      { cwd: work },
    );
    expect(w.code, w.stderr).toBe(0);
    const round = w.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; metrics: Record<string, number> })
      .find((e) => e.kind === 'goodput.watch-round')!;
    expect(round.metrics.joules_per_output_token).toBeGreaterThan(0);
    expect(round.metrics.joules_per_output_token! * round.metrics.output_tokens_per_joule!).toBeCloseTo(1, 9);
    expect(round.metrics.cost_per_mtok).toBeGreaterThan(0);

    const bad = await runCliInProcess([...RUN, '--gpu-power-watts', '-5', '--out', join(work, 'bad')], {
      cwd: work,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--gpu-power-watts must be a positive number/);
  });
});
