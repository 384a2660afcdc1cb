/**
 * The options the `goodput` command starts node with, read from the one place they are set:
 * the sh line of bin/goodput.js (`exec node <options> "$0" "$@"`). A bench that runs goodput
 * in its own process (or spawns dist/cli/main.js) passes them too, so that it measures goodput
 * as users start it, not a node with its default heap.
 */

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'goodput.js');

/** The node options of the bin's exec line; throws when the line is not there. */
export function cliNodeFlags(bin = BIN_FILE) {
  const m = /^':' \/\/; exec node (.*) "\$0" "\$@"$/m.exec(readFileSync(bin, 'utf8'));
  if (!m) throw new Error(`${bin}: no 'exec node … "$0" "$@"' line to read the CLI's node options from`);
  return m[1].split(/\s+/).filter(Boolean);
}

/**
 * Runs this bench again in a node started with the CLI's options, unless this process already
 * has them; returns only in the process that has them (the other exits with the child's status).
 */
export function asTheCliStartsNode(script) {
  const flags = cliNodeFlags();
  if (flags.every((f) => process.execArgv.includes(f))) return flags;
  const res = spawnSync(process.execPath, [...flags, ...process.execArgv, script, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(res.status ?? 1);
}
