/**
 * Serving configurations as argument lists: a plain command-line file, or a YAML/JSON file
 * holding `command` / `args` lists (a Kubernetes Deployment's containers, a compose service's
 * `command` or `entrypoint`, or any object with those keys).
 *
 * @module
 */

import { canonicalFlag, engineOfCommand } from '../engines/index.js';
import { GoodputError } from '../errors.js';
import { parseYamlBounded } from '../util/index.js';
import { canonicalTokens, flagsOf, tokenizeCommandLine } from './args.js';
import type { AdrRule } from './schema.js';

/** One argument list found in a configuration, with where it was found. */
export interface ServingArgs {
  /** E.g. "spec.template.spec.containers[0] (vllm)", "services.llm", or "command line". */
  source: string;
  tokens: string[];
}

/** A list value or a string → words; a string element holding spaces (sh -c "…") is split too. */
function wordsOf(value: unknown): string[] | undefined {
  if (typeof value === 'string') return tokenizeCommandLine(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) {
    return value.flatMap((v) =>
      typeof v === 'string' && /\s/.test(v.trim()) ? tokenizeCommandLine(v) : [String(v)],
    );
  }
  return undefined;
}

function walk(node: unknown, path: string, out: ServingArgs[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, i) => {
      walk(item, `${path}[${i}]`, out);
    });
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const obj = node as Record<string, unknown>;
  const tokens = [
    ...(wordsOf(obj.entrypoint) ?? []),
    ...(wordsOf(obj.command) ?? []),
    ...(wordsOf(obj.args) ?? []),
  ];
  const hasArgs = ['entrypoint', 'command', 'args'].some((k) => wordsOf(obj[k]) !== undefined);
  if (hasArgs) {
    const name = typeof obj.name === 'string' ? ` (${obj.name})` : '';
    out.push({ source: `${path || '(root)'}${name}`, tokens });
  }
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'command' || key === 'args' || key === 'entrypoint') continue;
    walk(value, path ? `${path}.${key}` : key, out);
  }
}

/** Argument lists in structured data (one parsed YAML/JSON document or several). */
export function argsFromStructured(documents: unknown[]): ServingArgs[] {
  const out: ServingArgs[] = [];
  documents.forEach((doc, i) => {
    walk(doc, documents.length > 1 ? `doc${i}` : '', out);
  });
  return out;
}

/**
 * Reads a configuration's text: JSON (by extension or a leading `{`/`[`), YAML (by extension
 * or when it parses into an object), else a command line. Throws E_CONFIG when a structured
 * file holds no argument list.
 */
export function parseServingConfig(text: string, fileName: string): ServingArgs[] {
  const lower = fileName.toLowerCase();
  const trimmed = text.trim();
  let documents: unknown[] | undefined;
  if (lower.endsWith('.json') || /^[{[]/.test(trimmed)) {
    try {
      documents = [JSON.parse(text)];
    } catch (e) {
      throw new GoodputError(
        'E_CONFIG',
        `${fileName} is not valid JSON: ${(e as Error).message}`,
        'fix the JSON',
      );
    }
  } else if (lower.endsWith('.yaml') || lower.endsWith('.yml')) {
    const parsed = parseYamlBounded(text);
    if (!parsed.ok) {
      throw new GoodputError(
        'E_CONFIG',
        `${fileName} is not valid YAML: ${parsed.problem}`,
        parsed.kind === 'syntax'
          ? 'fix the YAML'
          : 'point --config at the serving configuration itself (a few kilobytes, no alias bombs)',
      );
    }
    documents = parsed.documents;
  }
  if (!documents) return [{ source: 'command line', tokens: tokenizeCommandLine(text) }];
  const found = argsFromStructured(documents);
  if (found.length === 0) {
    throw new GoodputError(
      'E_CONFIG',
      `${fileName} holds no command or args list`,
      'point --config at a command-line file, a Kubernetes manifest (containers[].args) or a compose file (services.*.command)',
    );
  }
  return found;
}

/**
 * The argument lists that rules apply to: those that mention a flag of some rule; when none
 * does, every list that has flags (so that a missing flag is still reported); when no list
 * has flags, all of them. A sidecar without the engine's flags is left out.
 */
export function servingTargets(all: ServingArgs[], rules: readonly AdrRule[]): ServingArgs[] {
  const mentions = all.filter((a) => {
    const engine = engineOfCommand(a.tokens);
    const ruleFlags = new Set(rules.map((r) => canonicalFlag(r.flag, engine)));
    return [...flagsOf(canonicalTokens(a.tokens, engine)).keys()].some(
      (f) => ruleFlags.has(f) || ruleFlags.has(f.replace(/^--no-/, '--')),
    );
  });
  if (mentions.length > 0) return mentions;
  const withFlags = all.filter((a) => flagsOf(a.tokens).size > 0);
  return withFlags.length > 0 ? withFlags : all;
}
