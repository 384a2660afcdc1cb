/**
 * Typed option values: turns the raw text of one flag into the value its OptionType asks
 * for, or a usage error that names the flag and the form expected.
 *
 * @module
 */

import { parseDuration } from '../config/index.js';
import { GoodputError } from '../errors.js';
import { boundsProblem, type OptionSpec } from './options/index.js';

/** The form each option type expects, for error messages and help. */
export const EXPECTED_FORM: Record<OptionSpec['type'], string> = {
  string: 'a value',
  number: 'a number (e.g. 0.5)',
  integer: 'a whole number ≥ 0 (e.g. 8)',
  boolean: 'true or false',
  duration: 'a duration with a unit, such as 500ms, 10s, 5m or 2h',
  list: 'a comma-separated list',
};

function badValue(spec: OptionSpec, raw: string, expected: string): GoodputError {
  return new GoodputError(
    'E_USAGE',
    `--${spec.name} expects ${expected}, got '${raw}'`,
    `give --${spec.name} ${exampleFor(spec)} (see goodput <command> --help)`,
  );
}

function exampleFor(spec: OptionSpec): string {
  if (spec.choices && spec.choices.length > 0) return `one of: ${spec.choices.join(', ')}`;
  switch (spec.type) {
    case 'number':
      return 'a number, e.g. 0.5';
    case 'integer':
      return 'a whole number, e.g. 8';
    case 'duration':
      return 'a duration, e.g. 30s';
    case 'boolean':
      return 'true or false, or use --no-' + spec.name;
    default:
      return spec.valueName ? `a ${spec.valueName}` : 'a value';
  }
}

function checkChoice(spec: OptionSpec, raw: string): void {
  if (spec.choices && !spec.choices.includes(raw)) {
    throw badValue(spec, raw, `one of ${spec.choices.join(', ')}`);
  }
}

/** A number within the bounds of its option's entry, else a usage error naming the range. */
function bounded(spec: OptionSpec, value: number): number {
  const problem = boundsProblem(spec.name, spec, value, spec.type === 'duration');
  if (problem === undefined) return value;
  throw new GoodputError(
    'E_USAGE',
    problem,
    `give --${spec.name} a value in that range${spec.why ? ` (${spec.why})` : ''}`,
  );
}

/**
 * Converts one raw flag value to its typed value. Lists return the items of this one
 * occurrence (the parser concatenates repeats). Numbers are checked against their bounds.
 */
export function convertOptionValue(spec: OptionSpec, raw: string): string | number | boolean | string[] {
  const value = convertRaw(spec, raw);
  return typeof value === 'number' ? bounded(spec, value) : value;
}

function convertRaw(spec: OptionSpec, raw: string): string | number | boolean | string[] {
  switch (spec.type) {
    case 'string':
      checkChoice(spec, raw);
      return raw;
    case 'number': {
      if (spec.allowInfinity && /^\+?inf(inity)?$/i.test(raw.trim())) return Number.POSITIVE_INFINITY;
      const n = raw.trim() === '' ? Number.NaN : Number(raw);
      if (!Number.isFinite(n)) throw badValue(spec, raw, EXPECTED_FORM.number);
      return n;
    }
    case 'integer': {
      if (!/^\d+$/.test(raw.trim())) throw badValue(spec, raw, EXPECTED_FORM.integer);
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) throw badValue(spec, raw, EXPECTED_FORM.integer);
      return n;
    }
    case 'boolean': {
      const v = raw.toLowerCase();
      if (v === 'true' || v === '1' || v === 'yes') return true;
      if (v === 'false' || v === '0' || v === 'no') return false;
      throw badValue(spec, raw, EXPECTED_FORM.boolean);
    }
    case 'duration':
      // The config module's grammar (500ms, 60s, 1m30s; a bare number is refused); its errors name the flag.
      return parseDuration(raw, `--${spec.name}`);
    case 'list': {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
      for (const item of items) checkChoice(spec, item);
      return items;
    }
  }
}
