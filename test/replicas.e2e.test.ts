/**
 * Several replicas behind a router, end to end over loopback: two simulated engines behind a
 * weighted round-robin proxy (3:1), one run through the proxy with `--metrics-url` for each.
 * The server block carries each replica's figures and totals that are their sums, the samples
 * file names the replica of every line, the diagnosis names the uneven router, and the
 * reports show the per-replica table.
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderRunMarkdown, renderRunTable } from '../src/report/index.js';
import { rebuildSummary } from '../src/runner/index.js';
import { type SimServer, startSim } from '../src/sim/index.js';
import type { RunSummary, ServerSample } from '../src/types.js';
import { jsonlLines, readRunSummary, runCliInProcess } from './helpers/cli.js';
import { type RoundRobinProxy, roundRobinProxy } from './helpers/round-robin-proxy.js';

let work: string;
let sims: SimServer[] = [];
let proxy: RoundRobinProxy;
let summary: RunSummary;
let out: string;
let stdout: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-replicas-e2e-'));
  sims = await Promise.all(
    [1, 2].map((seed) => startSim({ host: '127.0.0.1', port: 0, seed, slowdown: 0.05 })),
  );
  proxy = await roundRobinProxy(
    sims.map((s) => s.url),
    [3, 1],
  );
  out = join(work, 'run');
  const res = await runCliInProcess(
    [
      'run',
      '--url',
      `${proxy.url}/v1`,
      '--requests',
      '40',
      '--concurrency',
      '4',
      '--prompt-tokens',
      '512',
      '--max-tokens',
      '8',
      '--metrics-url',
      `big=${sims[0]!.url}/metrics`,
      '--metrics-url',
      `small=${sims[1]!.url}/metrics`,
      '--scrape-interval',
      '50ms',
      '--out',
      out,
    ],
    { cwd: work },
  );
  stdout = res.stdout;
  expect(res.code, res.stderr).toBe(0);
  summary = readRunSummary(out);
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all(sims.map((s) => s.close()));
  rmSync(work, { recursive: true, force: true });
});

describe('--metrics-url for each of two replicas behind a 3:1 router', () => {
  it('the server block holds each replica, and its totals are their sums', () => {
    const server = summary.server!;
    expect(server.replicas?.map((r) => r.replica)).toEqual(['big', 'small']);
    const [big, small] = server.replicas!;
    // Every generated token is one a replica counted; together, what the client received.
    expect(big!.generatedTokens! + small!.generatedTokens!).toBe(server.generatedTokens);
    expect(server.generatedTokens).toBe(summary.total_output_tokens);
    expect(big!.requests! + small!.requests!).toBe(40);
    // The router sent 3 of every 4 completion requests to the first replica.
    expect(big!.requests).toBeGreaterThan(2 * small!.requests!);
    expect(big!.preemptions! + small!.preemptions!).toBe(server.preemptions);
    // KV usage: the totals are the mean across replicas; the peak names its replica.
    expect(server.series.kvUsage!.max).toBeLessThanOrEqual(
      Math.max(big!.series.kvUsage!.max, small!.series.kvUsage!.max),
    );
    // Three requests at a time on the first replica, one on the second: its cache fills more.
    expect(big!.series.kvUsage!.max).toBeGreaterThan(small!.series.kvUsage!.max);
    expect(server.replicaMax?.kvUsage).toEqual({ value: big!.series.kvUsage!.max, replica: 'big' });
    expect(server.metricsUrl).toContain(sims[1]!.url);
  });

  it('server-metrics.jsonl names the replica of every line; summarize rebuilds the same block', async () => {
    const lines = jsonlLines(join(out, 'server-metrics.jsonl')).slice(1) as ServerSample[];
    expect(new Set(lines.map((l) => l.replica))).toEqual(new Set(['big', 'small']));
    const rebuilt = await rebuildSummary(out);
    expect(rebuilt.summary.server?.generatedTokens).toBe(summary.server!.generatedTokens);
    expect(rebuilt.summary.server?.replicas?.map((r) => r.requests)).toEqual(
      summary.server!.replicas!.map((r) => r.requests),
    );
  });

  it('the diagnosis names the uneven router and both replicas', () => {
    const finding = summary.diagnosis?.find((f) => f.kind === 'replica-imbalance');
    expect(finding, JSON.stringify(summary.diagnosis)).toBeDefined();
    expect(finding!.title).toMatch(/^Router uneven: big took \d\.\d× the requests of small/);
    expect(finding!.evidence).toMatch(/big \d+ \(7\d%\), small \d+ \(2\d%\)/);
    expect(stdout).toContain('Router uneven');
  });

  it('the terminal and Markdown reports show one row per replica', () => {
    for (const text of [renderRunTable(summary), renderRunMarkdown(summary)]) {
      expect(text).toMatch(/big/);
      expect(text).toMatch(/small/);
    }
    expect(renderRunTable(summary)).toMatch(/^\s*big\s+30 \(75\.0 %\)/m);
  });

  it('the HTML report has the Replicas section', async () => {
    const res = await runCliInProcess(['report', out, '-o', 'report.html'], { cwd: work });
    expect(res.code, res.stderr).toBe(0);
    const html = readFileSync(join(work, 'report.html'), 'utf8');
    expect(html).toContain('<section id="replicas">');
    expect(html).toMatch(/<td>small<\/td><td class="num">10 \(25\.0 %\)<\/td>/);
  });
});
