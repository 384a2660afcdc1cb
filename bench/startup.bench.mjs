/**
 * Start-up cost of the binary: `goodput --version` and `goodput --help` against `node -e 0`,
 * run side by side (interleaved, so machine load hits all three alike). Commands and the
 * o200k tokenizer load lazily, so neither may take more than 3× a bare Node start (median of
 * the runs). Also prints `goodput sim --help` and `goodput run --help` (one command each).
 *
 * `--baseline OLD/dist/cli/main.js` (an older build, e.g. main's before a change: `git worktree
 * add /tmp/old REF && cd /tmp/old && npm ci && npm run build`) times `--version`, `sim --help`
 * and `run --help` of both builds in the same rounds and prints new/old; each must be at most
 * 1.2× the old (the noise of a shared machine), else the bench fails. `--bin NEW/dist/cli/main.js`
 * times another build than this tree's (keep both on one file system: /tmp reads faster).
 *
 * Exits non-zero when a target is missed.
 */

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const at0 = process.argv.indexOf('--bin');
const BIN =
  at0 > 0
    ? process.argv[at0 + 1]
    : join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli', 'main.js');
const ROUNDS = 15;
const TARGET = 3;
// Two builds' medians differ by up to ~15 % from round to round on a shared 2-core machine.
const NO_WORSE = 1.2;
const at = process.argv.indexOf('--baseline');
const OLD = at > 0 ? process.argv[at + 1] : undefined;

const cases = {
  'node -e 0': ['-e', '0'],
  'goodput --version': [BIN, '--version'],
  'goodput --help': [BIN, '--help'],
  'goodput sim --help': [BIN, 'sim', '--help'],
  'goodput run --help': [BIN, 'run', '--help'],
};
/** Old build against new, command by command. */
const compared = ['--version', 'sim --help', 'run --help'];
if (OLD) for (const c of compared) cases[`old goodput ${c}`] = [OLD, ...c.split(' ')];

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
// Every other round in reverse order: no case always runs right after the same one.
for (let i = 0; i < ROUNDS; i++) {
  const order = Object.entries(cases);
  if (i % 2 === 1) order.reverse();
  for (const [name, args] of order) times[name].push(once(args));
}

const base = median(times['node -e 0']);
let failures = 0;
for (const name of Object.keys(cases).filter((n) => !n.startsWith('old '))) {
  const m = median(times[name]);
  const ratio = m / base;
  const checked = name === 'goodput --version' || name === 'goodput --help';
  const ok = !checked || ratio <= TARGET;
  if (!ok) failures++;
  console.log(
    `${checked ? (ok ? 'ok  ' : 'FAIL') : '    '} ${name.padEnd(20)} median ${m.toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}× node -e 0${checked ? ` (target ≤ ${TARGET}×)` : ''}`,
  );
}
if (OLD) {
  for (const c of compared) {
    const ratio = median(times[`goodput ${c}`]) / median(times[`old goodput ${c}`]);
    const ok = ratio <= NO_WORSE;
    if (!ok) failures++;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} goodput ${c.padEnd(12)} new/old ${ratio.toFixed(2)}× (target ≤ ${NO_WORSE}×)`,
    );
  }
}
process.exit(failures > 0 ? 1 : 0);
