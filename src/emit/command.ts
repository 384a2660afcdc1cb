/**
 * `goodput emit prometheus-rules --adr FILE [-o rules.yml]`: alerting rules from an ADR's
 * gate and rollback, and beside them (FILE.test.yml) a `promtool test rules` case.
 *
 * @module
 */

import { writeFile } from 'node:fs/promises';
import { basename, resolve as resolvePath } from 'node:path';
import { readAdr } from '../adr/index.js';
import { ExitCode, GoodputError } from '../errors.js';
import type { CommandSpec } from '../flags/index.js';
import { alertsFromAdr, renderRulesTest, renderRulesYaml } from './rules.js';

/** rules.yml → rules.test.yml */
export function testFileFor(rulesPath: string): string {
  return rulesPath.replace(/(\.ya?ml)?$/, '.test.yml');
}

const prometheusRules: CommandSpec = {
  name: 'prometheus-rules',
  summary: "Prometheus alerting rules from an ADR's gate and rollback, with a promtool test",
  description:
    'Writes the rules (stdout without -o) and, with -o FILE, FILE.test.yml for `promtool test rules`. Alerts read the goodput watch exporter\'s goodput_round_metric{metric="<id>"} gauge: the last valid round\'s value of each catalogue metric, as gate and the rollback rule read it.',
  options: [
    {
      name: 'adr',
      type: 'string',
      valueName: 'FILE',
      description: 'The ADR to read (gate thresholds and rollback)',
    },
    {
      name: 'out',
      type: 'string',
      short: 'o',
      valueName: 'FILE',
      description: 'Rules file to write [default: stdout]',
    },
    {
      name: 'gate-for',
      type: 'string',
      default: '5m',
      valueName: 'DURATION',
      description: 'for: of the gate-threshold alerts',
    },
    {
      name: 'json',
      type: 'boolean',
      description:
        'Print {schemaVersion: 1, kind: "goodput.emit", artefact, adrId, alerts, files} on stdout (without -o, `rules` holds the YAML)',
    },
  ],
  async run(ctx) {
    const o = ctx.args.options;
    if (typeof o.adr !== 'string') {
      throw new GoodputError(
        'E_USAGE',
        'emit prometheus-rules needs --adr FILE',
        'e.g. goodput emit prometheus-rules --adr docs/adr/ADR-20250102-001-x.md',
      );
    }
    const doc = await readAdr(resolvePath(ctx.cwd, o.adr));
    const alerts = alertsFromAdr(doc.frontMatter, { gateFor: o.gateFor as string });
    const rules = renderRulesYaml(doc.frontMatter, alerts);
    const json = (files: string[], extra: Record<string, unknown> = {}) =>
      `${JSON.stringify(
        {
          schemaVersion: 1,
          kind: 'goodput.emit',
          artefact: 'prometheus-rules',
          adrId: doc.frontMatter.id,
          alerts: alerts.map((a) => ({
            alert: a.alert,
            metric: a.metric.id,
            op: a.op,
            limit: a.limit,
            for: a.for,
            severity: a.severity,
            expr: a.expr,
            summary: a.summary,
          })),
          files,
          ...extra,
        },
        null,
        2,
      )}\n`;
    if (typeof o.out !== 'string') {
      ctx.stdout.write(o.json === true ? json([], { rules }) : rules);
      return ExitCode.OK;
    }
    const out = resolvePath(ctx.cwd, o.out);
    const testOut = testFileFor(out);
    await writeFile(out, rules);
    await writeFile(testOut, renderRulesTest(basename(out), alerts, doc.frontMatter));
    if (o.json === true) ctx.stdout.write(json([out, testOut]));
    else ctx.stderr.write(`rules: ${out}\ntest: ${testOut} (promtool test rules ${basename(testOut)})\n`);
    return ExitCode.OK;
  },
};

export const emitCommand: CommandSpec = {
  name: 'emit',
  summary: 'Generate artefacts from an ADR (prometheus-rules)',
  options: [],
  subcommands: [prometheusRules],
  async run() {
    throw new GoodputError(
      'E_USAGE',
      'emit needs a subcommand',
      'e.g. goodput emit prometheus-rules --adr FILE',
    );
  },
};
