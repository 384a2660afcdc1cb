/**
 * `adr lint` core (pure): every ADR parses, its id matches its file name, its thresholds
 * are valid, ids are unique, and an accepted ADR carries at least one executable rule or
 * gate threshold.
 *
 * @module
 */

import { basename } from 'node:path';
import { isGoodputError } from '../errors.js';
import { gateSpecThresholds } from '../gate/index.js';
import { type AdrDocument, parseAdr } from './document.js';
import { gateHasThreshold } from './schema.js';

export const NO_CONCLUSION = 'no executable rule: this tuning reached no conclusion';
export const EXPERIMENT_NO_CONCLUSION =
  'experiment.winner is null: the experiment reached no conclusion (rerun it with more runs, or record the decision by hand)';

export interface LintResult {
  path: string;
  doc?: AdrDocument;
  problems: string[];
}

/** Lints one ADR's text. */
export function lintAdrText(text: string, path: string): LintResult {
  let doc: AdrDocument;
  try {
    doc = parseAdr(text, path);
  } catch (e) {
    if (!isGoodputError(e)) throw e;
    return {
      path,
      problems: [e.message.startsWith(`${path}: `) ? e.message.slice(path.length + 2) : e.message],
    };
  }
  const problems: string[] = [];
  const fm = doc.frontMatter;
  if (!basename(path).startsWith(`${fm.id}`)) {
    problems.push(`id ${fm.id} does not match the file name ${basename(path)}`);
  }
  try {
    gateSpecThresholds(fm.gate ?? {});
  } catch (e) {
    if (!isGoodputError(e)) throw e;
    problems.push(`gate.thresholds: ${e.message.split('\n')[0]}`);
  }
  if (fm.status === 'accepted' && (fm.rules?.length ?? 0) === 0 && !gateHasThreshold(fm.gate)) {
    problems.push(NO_CONCLUSION);
  }
  // An experiment that found no winner decided nothing, whatever the status says.
  if (fm.experiment && fm.experiment.winner === null) problems.push(EXPERIMENT_NO_CONCLUSION);
  return { path, doc, problems };
}

/** Lints several ADRs, adding a problem for each id used twice. */
export function lintAdrs(files: ReadonlyArray<{ path: string; text: string }>): LintResult[] {
  const results = files.map((f) => lintAdrText(f.text, f.path));
  const firstById = new Map<string, string>();
  for (const r of results) {
    const id = r.doc?.frontMatter.id;
    if (!id) continue;
    const first = firstById.get(id);
    if (first) r.problems.push(`id ${id} is already used by ${first}`);
    else firstById.set(id, r.path);
  }
  return results;
}
