/**
 * `goodput emit prometheus-rules --adr FILE [--every 5m] [--jitter 0.1] [-o rules.yml [--tests]]`:
 * alerting rules from an ADR's gate and rollback for watch's cadence, and (--tests)
 * FILE.test.yml for `promtool test rules`. `goodput emit grafana-dashboard --adr FILE`: the
 * dashboard of the same series, with the ADR's thresholds as lines.
 *
 * @module
 */

import { basename, resolve as resolvePath } from 'node:path';
import { readAdr } from '../adr/index.js';
import { ExitCode, GoodputError } from '../errors.js';
import {
  type CommandContext,
  DAY_MS,
  defineCommand,
  defineOptions,
  type FlagValues,
  type StringOption,
} from '../flags/index.js';
import { writeOutputFile } from '../results/index.js';
import { type Cadence, promDuration } from './cadence.js';
import { renderDashboard } from './dashboard.js';
import { k8sCommands } from './kubernetes-command.js';
import { alertsFromAdr, renderRulesYaml } from './rules.js';
import { renderRulesTest } from './rules-test.js';

/** rules.yml → rules.test.yml */
export function testFileFor(rulesPath: string): string {
  return rulesPath.replace(/(\.ya?ml)?$/, '.test.yml');
}

const ADR_OPTION: StringOption = {
  type: 'string',
  valueName: 'FILE',
  description: 'The ADR to read (gate thresholds and rollback)',
};

/** watch's cadence: the same flags and defaults as `goodput watch`. */
const CADENCE_OPTIONS = defineOptions({
  every: {
    type: 'duration',
    default: '5m',
    min: 1000,
    max: 30 * DAY_MS,
    why: "give watch's --every, e.g. --every 5m",
    valueName: 'DURATION',
    description: "watch's --every: time between two probe rounds (windows and for: derive from it)",
  },
  jitter: {
    type: 'number',
    default: 0.1,
    min: 0,
    max: 0.2,
    why: "alerts can follow a jitter of at most 0.2 (a round may then move by 40 % of --every between two rounds); give watch's --jitter, e.g. --jitter 0.1",
    valueName: 'FRACTION',
    description: "watch's --jitter (at most 0.2 here)",
  },
});

const OUT_OPTION = (what: string): StringOption => ({
  type: 'string',
  short: 'o',
  valueName: 'FILE',
  description: `${what} to write [default: stdout]`,
});

/** What every emit subcommand of an ADR reads. */
type AdrFlags = FlagValues<typeof CADENCE_OPTIONS> & { adr?: string };

async function adrOf(ctx: CommandContext<AdrFlags>, sub: string) {
  const adr = ctx.args.options.adr;
  if (adr === undefined) {
    throw new GoodputError(
      'E_USAGE',
      `emit ${sub} needs --adr FILE`,
      `e.g. goodput emit ${sub} --adr docs/adr/ADR-20250102-001-x.md --every 5m`,
    );
  }
  return readAdr(resolvePath(ctx.cwd, adr));
}

/** watch's cadence, its bounds checked by the options' entries. */
function cadenceFrom(ctx: CommandContext<AdrFlags>): Cadence {
  return { everyMs: ctx.args.options.every, jitter: ctx.args.options.jitter };
}

const prometheusRules = defineCommand({
  name: 'prometheus-rules',
  summary: "Prometheus alerting rules from an ADR's gate and rollback, for watch's cadence",
  description:
    'Writes the rules (stdout without -o) and, with --tests, FILE.test.yml for `promtool test rules`. Alerts read the goodput watch exporter\'s goodput_round_metric{metric="<id>"} gauge: the last valid round\'s value of each catalogue metric, as gate and the rollback rule read it. "for D" is ceil(D / --every) consecutive bad rounds, as in the rollback rule; GoodputProbesStale fires when no valid round came for 3 intervals, GoodputProbesAbsent when there was no round at all for 3 intervals (a start-up grace).',
  options: {
    adr: ADR_OPTION,
    out: OUT_OPTION('Rules file'),
    ...CADENCE_OPTIONS,
    gateFor: {
      type: 'string',
      default: '5m',
      valueName: 'DURATION',
      description: 'How long a gate threshold must be breached before its alert fires',
    },
    tests: {
      type: 'boolean',
      description: 'Also write FILE.test.yml (needs -o): promtool test cases at this cadence',
    },
    json: {
      type: 'boolean',
      description:
        'Print {schemaVersion: 1, kind: "goodput.emit", artefact, adrId, every, jitter, alerts, skipped, files} on stdout (without -o, `rules` holds the YAML)',
    },
  },
  async run(ctx) {
    const o = ctx.args.options;
    if (o.tests === true && o.out === undefined)
      throw new GoodputError(
        'E_USAGE',
        '--tests needs -o FILE (the test file names the rules file)',
        'e.g. goodput emit prometheus-rules --adr ADR.md -o rules.yml --tests',
      );
    const doc = await adrOf(ctx, 'prometheus-rules');
    const cadence = cadenceFrom(ctx);
    const emitted = alertsFromAdr(doc.frontMatter, { cadence, gateFor: o.gateFor });
    for (const s of emitted.skipped)
      ctx.stderr.write(`note: no alert for gate ${s.threshold}: ${s.reason}\n`);
    const rules = renderRulesYaml(doc.frontMatter, emitted);
    const json = (files: string[], extra: Record<string, unknown> = {}) =>
      `${JSON.stringify(
        {
          schemaVersion: 1,
          kind: 'goodput.emit',
          artefact: 'prometheus-rules',
          adrId: doc.frontMatter.id,
          every: promDuration(cadence.everyMs),
          jitter: cadence.jitter,
          alerts: emitted.alerts.map((a) =>
            a.kind === 'threshold'
              ? {
                  alert: a.alert,
                  metric: a.metric.id,
                  op: a.op,
                  limit: a.limit,
                  adrFor: a.adrFor,
                  rounds: a.rounds,
                  for: a.for,
                  severity: a.severity,
                  expr: a.expr,
                  summary: a.summary,
                }
              : {
                  alert: a.alert,
                  staleAfter: promDuration(a.staleAfterMs),
                  severity: a.severity,
                  expr: a.expr,
                  summary: a.summary,
                },
          ),
          skipped: emitted.skipped,
          files,
          ...extra,
        },
        null,
        2,
      )}\n`;
    if (o.out === undefined) {
      ctx.stdout.write(o.json === true ? json([], { rules }) : rules);
      return ExitCode.OK;
    }
    const out = resolvePath(ctx.cwd, o.out);
    await writeOutputFile(out, rules, { flag: '-o', suggest: 'rules.yml' });
    const files = [out];
    if (o.tests === true) {
      const testOut = testFileFor(out);
      await writeOutputFile(testOut, renderRulesTest(basename(out), emitted, doc.frontMatter), {
        flag: '--tests',
      });
      files.push(testOut);
    }
    if (o.json === true) ctx.stdout.write(json(files));
    else
      ctx.stderr.write(
        `rules: ${out}\n${files[1] ? `test: ${files[1]} (promtool test rules ${basename(files[1])})\n` : ''}`,
      );
    return ExitCode.OK;
  },
});

const grafanaDashboard = defineCommand({
  name: 'grafana-dashboard',
  summary: "A Grafana dashboard of watch's series, with the ADR's thresholds as lines",
  description:
    "Panels read the goodput watch exporter: per-round figures (goodput_round_metric) with the ADR's gate and rollback limits drawn as threshold lines, ranges of two probe intervals so every step has data, a datasource variable to import it anywhere.",
  options: { adr: ADR_OPTION, out: OUT_OPTION('Dashboard JSON'), ...CADENCE_OPTIONS },
  async run(ctx) {
    const doc = await adrOf(ctx, 'grafana-dashboard');
    const text = renderDashboard(doc.frontMatter, cadenceFrom(ctx));
    const out = ctx.args.options.out;
    if (out === undefined) {
      ctx.stdout.write(text);
      return ExitCode.OK;
    }
    const path = resolvePath(ctx.cwd, out);
    await writeOutputFile(path, text, { flag: '-o', suggest: 'dashboard.json' });
    ctx.stderr.write(`dashboard: ${path}\n`);
    return ExitCode.OK;
  },
});

export const emitCommand = defineCommand({
  name: 'emit',
  summary:
    'Generate artefacts: alert rules and a Grafana dashboard from an ADR (prometheus-rules, grafana-dashboard), Kubernetes manifests (k8s-job, k8s-watch)',
  options: {},
  subcommands: [prometheusRules, grafanaDashboard, ...k8sCommands],
  async run() {
    throw new GoodputError(
      'E_USAGE',
      'emit needs a subcommand',
      'e.g. goodput emit prometheus-rules --adr FILE, or goodput emit grafana-dashboard --adr FILE',
    );
  },
});
