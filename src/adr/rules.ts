/**
 * Solidified rules: written from `--rule` flags or derived from the serving arguments a run
 * was labelled with, and checked against the flags of a serving configuration.
 *
 * @module
 */

import { canonicalFlag, type EngineId, engineOfCommand } from '../engines/index.js';
import { GoodputError } from '../errors.js';
import { canonicalTokens, type FlagValues, flagsOf, normaliseFlag, tokenizeCommandLine } from './args.js';
import { type AdrRule, formatRule } from './schema.js';

/** The run label holding the serving arguments, e.g. `--label serving.args="--enable-chunked-prefill"`. */
export const SERVING_ARGS_LABEL = 'serving.args';

/**
 * Parses one `--rule` value: `enable-chunked-prefill` or `--enable-chunked-prefill` (present),
 * `max-num-batched-tokens=2048` or `--max-num-batched-tokens 2048` (equals), `!enforce-eager` (absent).
 */
export function parseRuleText(text: string): AdrRule {
  const t = text.trim();
  const bad = () =>
    new GoodputError(
      'E_USAGE',
      `--rule '${text}' is not a rule`,
      "write --rule enable-chunked-prefill, --rule max-num-batched-tokens=2048 or --rule '!enforce-eager'",
    );
  if (t.startsWith('!')) {
    const flag = t.slice(1).trim();
    if (!/^-{0,2}[A-Za-z0-9][\w.-]*$/.test(flag)) throw bad();
    return { flag: normaliseFlag(flag), absent: true };
  }
  const m = /^(-{0,2}[A-Za-z0-9][\w.-]*)(?:(?:=|\s+)(.+))?$/.exec(t);
  if (!m) throw bad();
  const flag = normaliseFlag(m[1] as string);
  return m[2] === undefined ? { flag } : { flag, equals: m[2].trim() };
}

/**
 * Rules the candidate's serving arguments imply: every flag it sets differently from the
 * baseline (or every flag, when the baseline has no serving arguments), and flags the
 * baseline set that the candidate dropped (as `absent`). Flags are compared, and written, in
 * their long spelling (`-np 4` → `--parallel=4`).
 */
export function rulesFromServingArgs(candidateArgs: string, baselineArgs?: string): AdrRule[] {
  // One spelling per flag, so that `-np 2` → `--parallel 4` is one change, not a flag dropped.
  const read = (args: string) => {
    const tokens = tokenizeCommandLine(args);
    return flagsOf(canonicalTokens(tokens, engineOfCommand(tokens)));
  };
  const cand = read(candidateArgs);
  const base = baselineArgs === undefined ? undefined : read(baselineArgs);
  const rules: AdrRule[] = [];
  for (const [flag, value] of cand) {
    if (base && base.get(flag) === value) continue;
    rules.push(value === true ? { flag } : { flag, equals: value });
  }
  for (const flag of base?.keys() ?? []) if (!cand.has(flag)) rules.push({ flag, absent: true });
  return rules;
}

/** Later rules replace earlier ones for the same flag (explicit --rule wins over derived ones). */
export function mergeRules(...lists: AdrRule[][]): AdrRule[] {
  const byFlag = new Map<string, AdrRule>();
  for (const rule of lists.flat()) byFlag.set(rule.flag, rule);
  return [...byFlag.values()];
}

export interface RuleViolation {
  rule: AdrRule;
  /** What the configuration has: the value, `true` for a bare flag, undefined when absent. */
  found?: string | true;
  problem: string;
}

const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

function sameValue(found: string | true, wanted: string | number | boolean): boolean {
  if (found === true) return wanted === true || String(wanted).toLowerCase() === 'true';
  const w = String(wanted);
  if (found === w) return true;
  const a = Number(found);
  const b = Number(w);
  return found.trim() !== '' && w.trim() !== '' && Number.isFinite(a) && Number.isFinite(b) && a === b;
}

/** "--no-enable-x" counts as the absence of "--enable-x", and "--enable-x=false" as off. */
function lookup(flags: FlagValues, flag: string): string | true | undefined {
  const negated = flag.startsWith('--') ? `--no-${flag.slice(2)}` : undefined;
  if (negated && flags.has(negated)) return undefined;
  return flags.get(flag);
}

/**
 * Checks each rule against a configuration's flags; one violation per rule that fails. With
 * `engine` (the flags then in canonical spelling, `canonicalTokens`), a rule's flag is looked up
 * in the engine's long spelling too: a rule on `-np` holds `--parallel 4` for llama.cpp.
 */
export function checkRules(rules: readonly AdrRule[], flags: FlagValues, engine?: EngineId): RuleViolation[] {
  const out: RuleViolation[] = [];
  for (const rule of rules) {
    const found = lookup(flags, engine === undefined ? rule.flag : canonicalFlag(rule.flag, engine));
    const isOff = found === undefined || (found !== true && FALSE_WORDS.has(found.toLowerCase()));
    if (rule.absent) {
      if (!isOff) out.push({ rule, found, problem: `${rule.flag} must not be set, found ${show(found)}` });
      continue;
    }
    if (rule.equals === undefined) {
      if (isOff) {
        const v: RuleViolation = { rule, problem: `${rule.flag} is missing` };
        if (found !== undefined) {
          v.found = found;
          v.problem = `${rule.flag} is switched off (${show(found)})`;
        }
        out.push(v);
      }
      continue;
    }
    if (found === undefined) {
      out.push({ rule, problem: `${rule.flag} is missing (required: ${String(rule.equals)})` });
    } else if (!sameValue(found, rule.equals)) {
      out.push({ rule, found, problem: `${rule.flag} is ${show(found)}, required ${String(rule.equals)}` });
    }
  }
  return out;
}

function show(v: string | true | undefined): string {
  return v === undefined ? '(unset)' : v === true ? 'set' : `'${v}'`;
}

export { formatRule };
