/**
 * The metric catalogue, end to end: every metric `compare` prints can be used in a gate
 * threshold, in an ADR `gate:` block, in `emit prometheus-rules` (against watch's exporter
 * series) and in watch's rollback rule, and each reads the same value from the same summary.
 * The summary is a real run of the embedded engine (in reasoning mode) with its server metrics
 * scraped, so the server and reasoning rows are there too. The emitted rules are checked by promtool when it is installed.
 *
 * Also: compare shows the summary's own percentiles (one percentile definition), not a second
 * computation from the records.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseAdr, serializeAdr } from '../src/adr/index.js';
import { compareRuns, loadRuns, type MetricDelta } from '../src/compare/index.js';
import { alertsFromAdr, DEFAULT_CADENCE, renderRulesYaml } from '../src/emit/index.js';
import { ExitCode } from '../src/errors.js';
import { gateSpecThresholds, parseThreshold, thresholdValue } from '../src/gate/index.js';
import { COMPARE_ROW_IDS, metric, ROUND_METRIC_SERIES } from '../src/metrics/index.js';
import type { RunSummary } from '../src/types.js';
import { rollbackFromAdr, WatchExporter, windowIsBad } from '../src/watch/index.js';
import { runCliInProcess } from './helpers/cli.js';

const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));

let work: string;
let summary: RunSummary;
let deltas: MetricDelta[];
let exposition: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-catalogue-'));
  const runs = ['a', 'b'].map((name, i) =>
    runCliInProcess(
      [
        'run',
        '--requests',
        '40',
        '--concurrency',
        '4',
        '--prompt-tokens',
        '128',
        '--max-tokens',
        '16',
        '--slo',
        'ttft=2000',
        // reasoning mode, so the reasoning rows (first reasoning/answer token) are measured too
        '--reasoning-tokens',
        '4',
        '--seed',
        String(i + 1),
        '--quiet',
        '--out',
        join(work, name),
      ],
      { cwd: work },
    ),
  );
  for (const r of await Promise.all(runs)) expect(r.code, r.stderr).toBe(ExitCode.OK);
  const inputs = await loadRuns([join(work, 'a'), join(work, 'b')]);
  summary = inputs[0]!.summary;
  deltas = compareRuns(inputs).comparisons[0]!.deltas;
  const exporter = new WatchExporter();
  exporter.setRoundMetrics('t', 'm', summary);
  exposition = await exporter.metrics();
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The value watch's exporter exposes for a metric id (NaN when the series is absent). */
function exported(id: string): number {
  const line = exposition
    .split('\n')
    .find((l) => l.startsWith(`${ROUND_METRIC_SERIES}{`) && l.includes(`metric="${id}"`));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function adrWith(fields: Record<string, unknown>): string {
  return serializeAdr(
    {
      schemaVersion: 1,
      id: 'ADR-20250102-001',
      title: 'Catalogue',
      date: '2025-01-02',
      status: 'accepted',
      ...fields,
    } as never,
    '# Catalogue\n',
  );
}

describe('every metric compare prints, in every place a metric can be named', () => {
  test('compare prints exactly the catalogue rows, server rows included', () => {
    expect(deltas.map((d) => d.key)).toEqual([...COMPARE_ROW_IDS]);
  });

  test.each(COMPARE_ROW_IDS.map((id) => [id]))(
    '%s: same value in compare, gate, ADR, emit and rollback',
    (id) => {
      const def = metric(id);
      const value = def.read(summary);
      expect(value, `${id} measured by the run`).toBeTypeOf('number');
      const v = value as number;

      // compare
      expect(deltas.find((d) => d.key === id)?.baseline).toBe(v);

      // gate threshold (its own grammar name)
      const limit = v + 1;
      const t = parseThreshold(`${def.threshold}<=${limit}`);
      expect(t.metric).toBe(def);
      expect(thresholdValue(t, summary)).toBe(v);

      // ADR gate: block, through the strict front-matter schema
      const gateDoc = parseAdr(
        adrWith({ gate: { [def.adrGateKey]: def.unit === 'ratio' ? 1 : limit } }),
        'a.md',
      );
      const [fromAdr] = gateSpecThresholds(gateDoc.frontMatter.gate ?? {});
      expect(fromAdr?.metric).toBe(def);
      expect(thresholdValue(fromAdr!, summary)).toBe(v);

      // emit prometheus-rules: the alert reads the exporter series that holds the same value;
      // what a watch round cannot measure (server figures, whole-run counts) is named, not dropped
      const emitted = alertsFromAdr(
        { ...gateDoc.frontMatter, rollback: { metric: 'ttft_p99_ms', above: 500, for: '5m' } },
        { cadence: DEFAULT_CADENCE },
      );
      const gateAlerts = emitted.alerts.filter(
        (a) => a.kind === 'threshold' && a.alert !== 'GoodputRollback',
      );
      if (def.server || def.unit === 'count') {
        expect(gateAlerts).toEqual([]);
        expect(emitted.skipped).toEqual([
          { threshold: fromAdr!.source, reason: expect.stringContaining(id) },
        ]);
      } else {
        expect(gateAlerts[0]?.expr).toContain(`${ROUND_METRIC_SERIES}{metric="${id}"}`);
        expect(emitted.skipped).toEqual([]);
      }
      expect(exported(id)).toBe(v);

      // watch rollback from the ADR's rollback block: above the value is quiet, below it is bad
      const quiet = rollbackFromAdr({ metric: def.adrMetric, above: v + 1, for: '5m' }, 'ADR-20250102-001');
      expect(windowIsBad(quiet, summary)).toEqual({ bad: false, value: v });
      const bad = rollbackFromAdr({ metric: def.adrMetric, below: v + 1, for: '5m' }, 'ADR-20250102-001');
      expect(windowIsBad(bad, summary)).toEqual({ bad: true, value: v });
    },
  );

  test('the rules emitted for all of them pass promtool check rules', (ctx) => {
    if (!PROMTOOL) {
      ctx.skip('promtool is not installed (looked in /usr/bin and /usr/local/bin)');
      return;
    }
    const gate: Record<string, number> = {};
    for (const id of COMPARE_ROW_IDS) {
      const def = metric(id);
      gate[def.adrGateKey] = def.unit === 'ratio' ? 0.5 : 100;
    }
    const doc = parseAdr(
      adrWith({ gate, rollback: { metric: 'ttft_p99_ms', above: 500, for: '5m' } }),
      'a.md',
    );
    const emitted = alertsFromAdr(doc.frontMatter, { cadence: DEFAULT_CADENCE });
    // one alert per threshold watch can judge, the rollback, and the staleness and absence
    // alerts (GoodputProbesStale, GoodputProbesAbsent); the rest named
    expect(emitted.alerts.length + emitted.skipped.length).toBe(COMPARE_ROW_IDS.length + 3);
    expect(emitted.skipped.length).toBeGreaterThan(0);
    writeFileSync(join(work, 'rules.yml'), renderRulesYaml(doc.frontMatter, emitted));
    const r = spawnSync(PROMTOOL, ['check', 'rules', 'rules.yml'], { cwd: work, encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(readFileSync(join(work, 'rules.yml'), 'utf8')).toContain('GoodputRollback');
  });
});

describe('one percentile definition', () => {
  test("compare's p50 and p99 are the summary's, for every latency row", () => {
    const rows = deltas.filter((d) => d.unit === 'ms');
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const d of rows) {
      const def = metric(d.key);
      expect(d.baseline, d.key).toBe(def.read(summary));
      // and the summary's value is its vLLM key's, where vLLM has one
      if (def.vllmKey) expect(d.baseline).toBe((summary as unknown as Record<string, number>)[def.vllmKey]);
    }
    // the records were there, so the rank tests and intervals ran on them; 40 requests a run are
    // too few for a p99 interval (none lies beyond it), and the row says so
    expect(deltas.find((d) => d.key === 'tpot_p50')?.ci).toBeDefined();
    const p99 = deltas.find((d) => d.key === 'tpot_p99');
    expect(p99?.ci).toBeUndefined();
    expect(p99?.why).toMatch(/too few samples for a p99 interval \(40 and 40\): each run needs 100/);
  });
});
