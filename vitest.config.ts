import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
/** What makes a test depend on its process: a server, a timer, the clock, event-loop stalls. */
const NEEDS_OWN_PROCESS =
  /measureStalls|performance\.now\(\)|monitorEventLoopDelay|Date\.now\(\)|hrtime|startSim|listen\(|setTimeout|^\/\/ needs a fresh process:/m;
/**
 * The modules' own tests that need none of that share one process: starting a process and
 * importing the modules anew for each of them cost about as long as the tests themselves.
 * They must not depend on a fresh module state (tokenizer.test.ts once did, and showed a bug).
 */
const SHARED = readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => `src/${f.replaceAll('\\', '/')}`)
  .filter((f) => !NEEDS_OWN_PROCESS.test(readFileSync(join(ROOT, f), 'utf8')))
  .sort();

/**
 * What makes a file's assertions depend on having the machine to itself: it reads the clock or
 * measures event-loop stalls, or says so in a comment (`// runs alone: why`).
 */
const TIMES_ITSELF =
  /measureStalls|performance\.now\(\)|monitorEventLoopDelay|hrtime|Date\.now\(\)|^\/\/ runs alone:/m;
const ALONE = readdirSync(ROOT, { recursive: true, encoding: 'utf8' })
  .map((f) => f.replaceAll('\\', '/'))
  .filter((f) => /^(src|test)\//.test(f) && f.endsWith('.test.ts') && !SHARED.includes(f))
  .filter((f) => TIMES_ITSELF.test(readFileSync(join(ROOT, f), 'utf8')))
  .sort();

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The JSON report lets .ci/run print a plain 'N passed, N failed' closing line.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-output/vitest.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: SHARED,
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Whole commands and servers that do not time themselves: a fresh process for each file,
        // two at a time beside the unit tests (most of their time is spent starting processes).
        extends: true,
        test: {
          name: 'isolated',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...SHARED, ...ALONE],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        // Files that time themselves run one at a time, after everything else, on a quiet machine.
        extends: true,
        test: {
          name: 'alone',
          include: ALONE,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
