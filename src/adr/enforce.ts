/**
 * `adr enforce` core: a serving configuration against an ADR's rules. Each violation names
 * the rule, the ADR id and where in the configuration it was checked. A flag an engine spells
 * two ways holds under either (llama.cpp's `-np 4` is `--parallel 4`; the engine is told by the
 * command's program words, else every engine's table that knows the spelling).
 *
 * @module
 */

import { basename } from 'node:path';
import { engineOfCommand } from '../engines/index.js';
import { GoodputError } from '../errors.js';
import { canonicalTokens, flagsOf } from './args.js';
import type { AdrDocument } from './document.js';
import { latestAcceptedAdr, readAdr, readTextFile } from './files.js';
import { checkRules, type RuleViolation } from './rules.js';
import { formatRule } from './schema.js';
import { parseServingConfig, type ServingArgs, servingTargets } from './serving-config.js';

export interface EnforceViolation extends RuleViolation {
  adrId: string;
  source: string;
}

export interface EnforceResult {
  adrId: string;
  violations: EnforceViolation[];
  /** Human-readable report lines: one per violation, or one saying all rules hold. */
  lines: string[];
}

/** Checks parsed argument lists against an ADR's rules (pure). */
export function enforceRules(adr: AdrDocument, configs: ServingArgs[], configName: string): EnforceResult {
  const id = adr.frontMatter.id;
  const rules = adr.frontMatter.rules ?? [];
  const targets = servingTargets(configs, rules);
  const violations: EnforceViolation[] = [];
  for (const target of targets) {
    // Each engine spells some flags two ways (llama.cpp -np / --parallel): compare long forms.
    const engine = engineOfCommand(target.tokens);
    for (const v of checkRules(rules, flagsOf(canonicalTokens(target.tokens, engine)), engine))
      violations.push({ ...v, adrId: id, source: target.source });
  }
  const where = (v: EnforceViolation) =>
    targets.length > 1 || v.source !== 'command line' ? ` [${v.source}]` : '';
  const lines =
    violations.length > 0
      ? violations.map(
          (v) =>
            `[ADR VIOLATION] ${id} rule \`${formatRule(v.rule)}\`: ${v.problem} in ${configName}${where(v)}`,
        )
      : [`[ADR OK] ${configName} satisfies the ${rules.length} rule(s) of ${id}`];
  return { adrId: id, violations, lines };
}

/** Reads the configuration and the ADR (a file, or the latest accepted one in a directory) and enforces. */
export async function enforceFile(configPath: string, adr: string | { dir: string }): Promise<EnforceResult> {
  const doc = typeof adr === 'string' ? await readAdr(adr) : await latestAcceptedAdr(adr.dir);
  if (!doc) {
    const dir = typeof adr === 'string' ? adr : adr.dir;
    throw new GoodputError(
      'E_USAGE',
      `no accepted ADR with rules in ${dir}`,
      'accept an ADR that has rules (status: accepted), or name one with --adr FILE',
    );
  }
  if ((doc.frontMatter.rules ?? []).length === 0) {
    throw new GoodputError(
      'E_ADR',
      `${doc.frontMatter.id} has no rules to enforce`,
      'add serving-parameter rules to its front matter (rules: - flag: --enable-chunked-prefill)',
    );
  }
  const text = await readTextFile(configPath, 'serving configuration');
  return enforceRules(doc, parseServingConfig(text, configPath), basename(configPath));
}
