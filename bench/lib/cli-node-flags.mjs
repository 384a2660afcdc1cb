/**
 * The options the `goodput` command starts node with on this machine, from the one place they
 * are decided: the sh lines of bin/goodput.js. They are run as the command runs them, with a
 * `node` first on the PATH that only prints the arguments it is given, so what sh computes
 * (the V8 pool on a small machine) is what comes back. A bench that runs goodput in its own
 * process (or spawns dist/cli/main.js) passes them too, so that it measures goodput as users
 * start it, not a node with its defaults.
 */

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'goodput.js');

/** The node options of the bin on this machine; throws when its sh lines give none. */
export function cliNodeFlags(bin = BIN_FILE) {
  const dir = mkdtempSync(join(tmpdir(), 'goodput-node-flags-'));
  try {
    writeFileSync(join(dir, 'node'), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n', {
      mode: 0o755,
    });
    const res = spawnSync('/bin/sh', [bin, '--version'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` },
    });
    const args = res.stdout.split('\n');
    const end = args.indexOf(bin);
    if (res.status !== 0 || end < 0) {
      throw new Error(`${bin}: its sh lines did not start node with it (${res.stderr || res.stdout})`);
    }
    return args.slice(0, end);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
