/**
 * `goodput history`: the trend of what watch stored, per window, from merged histograms.
 *
 * @module
 */

import { resolve as resolvePath } from 'node:path';
import { readAdr } from '../adr/index.js';
import { parseSlo } from '../config/index.js';
import { ExitCode, GoodputError } from '../errors.js';
import { chosenFormat, defineCommand } from '../flags/index.js';
import { gateSpecThresholds } from '../gate/index.js';
import { loadChartAssets } from '../report/html/index.js';
import { writeOutputFile } from '../results/index.js';
import { DEFAULT_STORE_FILE, WatchStore } from '../store/index.js';
import { toolVersion } from '../util/index.js';
import {
  type HistoryLimits,
  renderHistoryCsv,
  renderHistoryHtml,
  renderHistoryJson,
  renderHistoryTable,
} from './history.js';

/** The trend page's limit lines from --adr (gate thresholds, the workload's SLO) and --slo (which wins). */
async function historyLimits(
  cwd: string,
  adr: string | undefined,
  slo: string | undefined,
): Promise<HistoryLimits> {
  const limits: HistoryLimits = {};
  if (adr !== undefined) {
    const fm = (await readAdr(resolvePath(cwd, adr))).frontMatter;
    if (fm.gate) limits.gate = { adr: fm.id, thresholds: gateSpecThresholds(fm.gate) };
    if (fm.workload?.slo) limits.slo = fm.workload.slo;
  }
  if (slo !== undefined) limits.slo = parseSlo(slo, '--slo');
  return limits;
}

export const historyCommand = defineCommand({
  name: 'history',
  summary: 'Trend of the watch history: p50/p99 per window recomputed from merged histograms',
  description:
    'Reads the store that goodput watch writes (it may be running). --report -o FILE writes a self-contained HTML page with charts.',
  options: {
    store: {
      type: 'string',
      default: DEFAULT_STORE_FILE,
      valueName: 'FILE',
      description: 'SQLite history file written by goodput watch',
    },
    since: {
      type: 'duration',
      default: '24h',
      valueName: 'DURATION',
      description: 'Rounds from this long ago until now',
    },
    target: { type: 'string', valueName: 'NAME', description: 'Only this target [default: all]' },
    window: {
      type: 'duration',
      default: '1h',
      above: 0,
      says: 'longer than 0',
      why: 'e.g. 1h',
      valueName: 'DURATION',
      description: 'Window size of the trend',
    },
    format: {
      type: 'string',
      choices: ['table', 'json', 'csv'],
      default: 'table',
      description:
        "table: one line per window; json: the windows and rollbacks (schemaVersion 1); csv: one row per target and window (counts, attainment, errors, every latency's count/p50/p90/p99/mean in ms, GPU figures when watch scraped GPUs)",
    },
    json: { type: 'boolean', description: 'Same as --format json' },
    report: { type: 'boolean', description: 'Write an HTML trend page (with -o)' },
    adr: {
      type: 'string',
      valueName: 'FILE',
      description:
        "--report: draw this ADR's gate thresholds (and its workload's SLO) as limit lines on the charts",
    },
    slo: {
      type: 'string',
      valueName: 'SLO',
      description: "--report: draw these SLOs as limit lines, e.g. ttft=500,tpot=100 [default: the ADR's]",
    },
    out: {
      type: 'string',
      short: 'o',
      valueName: 'FILE',
      description: 'HTML file for --report [default: trend.html]',
    },
  },
  async run(ctx) {
    const o = ctx.args.options;
    const format = chosenFormat(ctx.args, ['json']);
    const windowMs = o.window;
    const store = WatchStore.open(resolvePath(ctx.cwd, o.store), { readonly: true });
    try {
      const query: { since: number; target?: string } = {
        since: Date.now() - o.since,
      };
      if (o.target !== undefined) {
        if (!store.targets().some((t) => t.name === o.target)) {
          throw new GoodputError(
            'E_USAGE',
            `no target '${o.target}' in ${store.path}`,
            `known targets: ${
              store
                .targets()
                .map((t) => t.name)
                .join(', ') || '(none)'
            }`,
          );
        }
        query.target = o.target;
      }
      const windows = store.windows(windowMs, query);
      const rollbacks = store.rollbacks(query.target).filter((r) => r.at >= query.since);
      if (o.report === true) {
        const limits = await historyLimits(ctx.cwd, o.adr, o.slo);
        const out = resolvePath(ctx.cwd, o.out ?? 'trend.html');
        await writeOutputFile(
          out,
          renderHistoryHtml(windows, rollbacks, await loadChartAssets(), {
            windowMs,
            version: toolVersion(),
            limits,
          }),
          { flag: '-o', suggest: 'trend.html' },
        );
        ctx.stderr.write(`trend report: ${out}\n`);
      }
      if (format === 'json') ctx.stdout.write(renderHistoryJson(windows, rollbacks, windowMs));
      else if (format === 'csv') ctx.stdout.write(renderHistoryCsv(windows));
      else if (o.report !== true) ctx.stdout.write(renderHistoryTable(windows, rollbacks));
      return ExitCode.OK;
    } finally {
      store.close();
    }
  },
});
