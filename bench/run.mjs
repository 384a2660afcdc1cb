#!/usr/bin/env node
/**
 * Runs every bench/*.bench.mjs in sequence, each in its own Node process (so one bench's
 * memory and timers do not disturb the next), with stdio inherited, started with the options
 * the `goodput` command gives node (bench/lib/cli-node-flags.mjs), so that goodput's code runs
 * in the benches as in the command. Exits non-zero when any
 * bench fails. `npm run bench` builds dist/ first; benches import from ../dist.
 *
 * Usage: node bench/run.mjs [name-filter]
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliNodeFlags } from './lib/cli-node-flags.mjs';

const here = dirname(fileURLToPath(import.meta.url));
/** The goodput command's node options on this machine (its sh lines, run once). */
const nodeFlags = cliNodeFlags();
const filter = process.argv[2];
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => !filter || f.includes(filter))
  .sort();

if (benches.length === 0) {
  console.error(`no bench/*.bench.mjs${filter ? ` matching ${filter}` : ''}`);
  process.exit(1);
}

const failed = [];
for (const file of benches) {
  console.log(`\n=== ${file} ===`);
  const started = performance.now();
  const res = spawnSync(process.execPath, [...nodeFlags, '--expose-gc', join(here, file)], {
    stdio: 'inherit',
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (res.status !== 0) {
    failed.push(file);
    console.log(`--- ${file}: FAILED (exit ${res.status ?? res.signal}) in ${seconds}s`);
  } else {
    console.log(`--- ${file}: ok in ${seconds}s`);
  }
}

console.log(`\n${benches.length - failed.length}/${benches.length} benches passed`);
if (failed.length > 0) {
  console.log(`failed: ${failed.join(', ')}`);
  process.exit(1);
}
