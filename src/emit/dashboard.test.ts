/**
 * emit grafana-dashboard: docs/grafana/goodput.json is its output for the example ADR; each
 * panel's unit is the unit of what its queries return (judged from the series, not from the
 * generator); the ADR's limits are threshold lines; a datasource variable and no `__inputs`;
 * ranges follow the cadence.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runCliInProcess } from '../../test/helpers/cli.js';
import { parseAdr } from '../adr/index.js';
import { metric } from '../metrics/index.js';
import { renderDashboard } from './dashboard.js';

const REPO = new URL('../../', import.meta.url);
const EXAMPLE = 'docs/adr/examples/ADR-20250102-001-chunked-prefill.md';
const example = parseAdr(readFileSync(new URL(EXAMPLE, REPO), 'utf8'), EXAMPLE).frontMatter;

interface Panel {
  title: string;
  datasource: { uid: string };
  fieldConfig: {
    defaults: {
      unit: string;
      min?: number;
      max?: number;
      thresholds: { steps: Array<{ value: number | null }> };
      custom: { thresholdsStyle: { mode: string } };
    };
  };
  targets: Array<{ expr: string; datasource: { uid: string } }>;
}

interface Dashboard {
  __inputs?: unknown;
  templating: { list: Array<{ name: string; type: string }> };
  annotations: { list: Array<{ expr: string }> };
  panels: Panel[];
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
const DATASOURCE = '${datasource}';

const dash = (text: string) => JSON.parse(text) as Dashboard;

/**
 * The unit of what an expression returns, read from the series it names: our exporter's naming
 * (`_seconds`, `_ratio`, `_total`, a queue length) and the catalogue unit of a round metric.
 */
function unitOf(expr: string): string {
  if (/_bucket\{.*\/.*_count\{/.test(expr)) return 'percentunit';
  if (/increase\([a-z_]+_total\{/.test(expr)) return 'short';
  const round = /goodput_round_metric\{metric="([a-z0-9_]+)"/.exec(expr);
  if (round) {
    const u = metric(round[1]!).unit;
    return u === 'ms' ? 'ms' : u === 'ratio' ? 'percentunit' : u === 'req/s' ? 'reqps' : 'short';
  }
  if (/_seconds\{/.test(expr)) return 's';
  if (/_ratio\{/.test(expr)) return 'percentunit';
  if (/_waiting_requests\{/.test(expr)) return 'short';
  throw new Error(`no unit known for ${expr}`);
}

describe('goodput emit grafana-dashboard', () => {
  test('docs/grafana/goodput.json is the output for the example ADR (regenerate with the command in its description)', async () => {
    const r = await runCliInProcess(['emit', 'grafana-dashboard', '--adr', EXAMPLE], {
      cwd: new URL(REPO).pathname,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(new URL('docs/grafana/goodput.json', REPO), 'utf8')).toBe(r.stdout);
  });

  test('one unit per panel, the unit of what it plots; ratios on 0..1', () => {
    const d = dash(renderDashboard(example, { everyMs: 300_000, jitter: 0.1 }));
    expect(d.panels.length).toBeGreaterThan(10);
    for (const p of d.panels) {
      for (const t of p.targets)
        expect(`${p.title}: ${unitOf(t.expr)}`).toBe(`${p.title}: ${p.fieldConfig.defaults.unit}`);
      if (p.fieldConfig.defaults.unit === 'percentunit') {
        expect(p.fieldConfig.defaults.min, p.title).toBe(0);
        expect(p.fieldConfig.defaults.max, p.title).toBe(1);
      }
    }
    // The two plots the issue found: waiting requests are not on a percent axis, round counts not in seconds.
    const waiting = d.panels.filter((p) => p.targets.some((t) => t.expr.includes('waiting_requests')));
    expect(waiting.map((p) => p.fieldConfig.defaults.unit)).toEqual(['short']);
    const rounds = d.panels.filter((p) => p.targets.some((t) => t.expr.includes('goodput_rounds_total')));
    expect(rounds.map((p) => p.fieldConfig.defaults.unit)).toEqual(['short']);
  });

  test('the unit check catches a queue length on a percent axis', () => {
    expect(unitOf('max by (target) (goodput_server_waiting_requests{target=~"$target"})')).not.toBe(
      'percentunit',
    );
    expect(unitOf('sum(increase(goodput_rounds_total{target=~"$target"}[10m]))')).not.toBe('s');
  });

  test("every ADR limit is a threshold line on its metric's panel", () => {
    const d = dash(renderDashboard(example, { everyMs: 300_000, jitter: 0.1 }));
    const linesOf = (id: string) => {
      const p = d.panels.find((x) => x.targets.some((t) => t.expr.includes(`metric="${id}"`)));
      expect(p?.fieldConfig.defaults.custom.thresholdsStyle.mode, id).toBe('line');
      return p!.fieldConfig.defaults.thresholds.steps.map((s) => s.value).filter((v) => v !== null);
    };
    // gate ttft_p99_ms 350 and rollback 525 on the TTFT panel; p50(ttft)<120 too
    expect(linesOf('ttft_p99')).toEqual([120, 350, 525]);
    expect(linesOf('tpot_p99')).toEqual([35]);
    expect(linesOf('attainment')).toEqual([0.9]);
    expect(linesOf('goodput_ratio')).toEqual([0.95]);
    expect(linesOf('error_rate')).toEqual([0.01]);
    // exact shares at the TTFT limits' bucket boundaries
    expect(d.panels.some((p) => p.targets.some((t) => t.expr.includes('le="0.35"')))).toBe(true);
    expect(d.panels.some((p) => p.targets.some((t) => t.expr.includes('le="0.525"')))).toBe(true);
  });

  test('a datasource variable that every query uses, no __inputs, ranges from the cadence', () => {
    for (const [everyMs, range] of [
      [300_000, '11m'],
      [60_000, '2m12s'],
      [2000, '4s400ms'],
    ] as const) {
      const d = dash(renderDashboard(example, { everyMs, jitter: 0.1 }));
      expect(d.__inputs).toBeUndefined();
      expect(d.templating.list.find((v) => v.name === 'datasource')?.type).toBe('datasource');
      for (const p of d.panels) {
        expect(p.datasource.uid).toBe(DATASOURCE);
        for (const t of p.targets) {
          expect(t.datasource.uid).toBe(DATASOURCE);
          expect(t.expr).not.toContain('$__');
          for (const m of t.expr.matchAll(/\[([^\]]+)\]/g)) expect(m[1]).toBe(range);
        }
      }
      expect(d.annotations.list[0]?.expr).toContain(`[${range}]`);
    }
  });
});
