#!/usr/bin/env node
/**
 * Regenerates the flag tables of README.md (between `<!-- flags:start -->` and
 * `<!-- flags:end -->`) from the option table, so docs and `--help` cannot drift.
 * `npm run docs:flags` builds dist/ first; src/cli/help.test.ts fails when the tables are stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { groupOptions, renderOptionsMarkdown } from '../dist/cli/help.js';
import { BENCHMARK_OPTIONS, optionList } from '../dist/flags/index.js';

const readmePath = join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const readme = readFileSync(readmePath, 'utf8');
const start = '<!-- flags:start -->';
const end = '<!-- flags:end -->';
const from = readme.indexOf(start);
const to = readme.indexOf(end);
if (from < 0 || to < from) {
  console.error(`README.md has no ${start} … ${end} section`);
  process.exit(1);
}
const tables = groupOptions(optionList(BENCHMARK_OPTIONS))
  .map(([group, opts]) => `#### ${group}\n\n${renderOptionsMarkdown(opts)}`)
  .join('\n');
writeFileSync(readmePath, `${readme.slice(0, from + start.length)}\n\n${tables}\n${readme.slice(to)}`);
console.log('README.md flag tables regenerated');
