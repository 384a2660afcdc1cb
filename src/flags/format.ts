/**
 * The output format of a command that reports: `--format NAME`, with boolean aliases such as
 * `--json` (= `--format json`) kept for scripts that use them.
 *
 * @module
 */

import { GoodputError } from '../errors.js';
import type { ParsedArgs } from './spec.js';

/**
 * `--format`, or the alias flag that was given; an alias that contradicts a given `--format`,
 * or two aliases, is a usage error.
 *
 * @example
 * chosenFormat(args, ['json', 'markdown']); // 'json' for --json, 'csv' for --format csv
 */
export function chosenFormat(args: ParsedArgs, aliases: readonly string[]): string {
  const o = args.options;
  const given = aliases.filter((a) => o[a] === true);
  const format = String(o.format);
  if (given.length > 1) {
    throw new GoodputError(
      'E_USAGE',
      `${given.map((a) => `--${a}`).join(' and ')} contradict each other`,
      `give one output format: --format ${aliases.join('|')}`,
    );
  }
  const alias = given[0];
  if (alias === undefined) return format;
  if (args.given.has('format') && format !== alias) {
    throw new GoodputError(
      'E_USAGE',
      `--${alias} contradicts --format ${format}`,
      `use one of them: --${alias} is the same as --format ${alias}`,
    );
  }
  return alias;
}
