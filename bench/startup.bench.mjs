/**
 * Start-up cost of the binary: `goodput --version` and `goodput --help` against `node -e 0`,
 * run side by side (interleaved, so machine load hits all three alike). Commands and the
 * o200k tokenizer load lazily, so neither may take more than 3× a bare Node start (median of
 * the runs). Also prints `goodput run --help` (loads one command) for reference.
 *
 * Exits non-zero when a target is missed.
 */

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'main.js');
const ROUNDS = 15;
const TARGET = 3;

const cases = {
  'node -e 0': ['-e', '0'],
  'goodput --version': [BIN, '--version'],
  'goodput --help': [BIN, '--help'],
  'goodput run --help': [BIN, 'run', '--help'],
};

function once(args) {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

for (const args of Object.values(cases)) once(args); // warm the file cache
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < ROUNDS; i++) {
  for (const [name, args] of Object.entries(cases)) times[name].push(once(args));
}

const base = median(times['node -e 0']);
let failures = 0;
for (const name of Object.keys(cases)) {
  const m = median(times[name]);
  const ratio = m / base;
  const checked = name === 'goodput --version' || name === 'goodput --help';
  const ok = !checked || ratio <= TARGET;
  if (!ok) failures++;
  console.log(
    `${checked ? (ok ? 'ok  ' : 'FAIL') : '    '} ${name.padEnd(20)} median ${m.toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}× node -e 0${checked ? ` (target ≤ ${TARGET}×)` : ''}`,
  );
}
process.exit(failures > 0 ? 1 : 0);
