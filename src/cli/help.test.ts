import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capture } from '../../test/helpers/cli.js';
import { ExitCode } from '../errors.js';
import { BENCHMARK_OPTIONS, type CommandSpec } from '../flags/index.js';
import { COMMANDS } from './commands/index.js';
import { runCommand } from './commands/run.js';
import { runCli } from './dispatch.js';
import {
  groupOptions,
  optionSignature,
  renderCommandHelp,
  renderOptionsMarkdown,
  renderRootHelp,
} from './help.js';

function io() {
  return {
    stdout: capture(),
    stderr: capture(),
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
}

describe('help', () => {
  it('lists every option of run under its group, groups in table order', () => {
    const text = renderCommandHelp(runCommand);
    for (const opt of BENCHMARK_OPTIONS) expect(text).toContain(optionSignature(opt));
    const headings = groupOptions(BENCHMARK_OPTIONS).map(([g]) => `\n${g}:\n`);
    expect(headings).toEqual(['\nTarget:\n', '\nWorkload:\n', '\nTrace:\n', '\nLoad:\n', '\nOutput:\n']);
    const positions = headings.map((h) => text.indexOf(h));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // Each option sits under its own group's heading.
    for (const opt of BENCHMARK_OPTIONS) {
      const at = text.indexOf(optionSignature(opt));
      const group = headings.findLastIndex((h) => text.indexOf(h) < at);
      expect(headings[group]).toBe(`\n${opt.group}:\n`);
    }
  });

  it('shows boolean defaults of true as --[no-]flag', () => {
    expect(optionSignature({ name: 'server-metrics', type: 'boolean', default: true, description: '' })).toBe(
      '--[no-]server-metrics',
    );
    expect(optionSignature({ name: 'json', type: 'boolean', description: '' })).toBe('--json');
    expect(optionSignature({ name: 'concurrency', short: 'c', type: 'integer', description: '' })).toBe(
      '-c, --concurrency N',
    );
  });

  it('goodput run --help prints to stdout and exits 0; no command prints help to stderr and exits 2', async () => {
    const a = io();
    expect(await runCli(['run', '--help'], a, [runCommand])).toBe(ExitCode.OK);
    expect(a.stdout.text).toContain('Usage: goodput run');
    const b = io();
    expect(await runCli([], b, [runCommand])).toBe(ExitCode.USAGE);
    expect(b.stderr.text).toContain('Commands:');
    const c = io();
    expect(await runCli(['rn'], c, [runCommand])).toBe(ExitCode.USAGE);
    expect(c.stderr.text).toContain('hint: did you mean goodput run?');
    const d = io();
    expect(await runCli(['--version'], d, [runCommand])).toBe(ExitCode.OK);
    expect(d.stdout.text.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('maps an unexpected exception to exit 1 without a stack trace', async () => {
    const boom: CommandSpec = {
      name: 'boom',
      summary: '',
      options: [],
      run: async () => {
        throw new Error('kaput');
      },
    };
    const a = io();
    expect(await runCli(['boom'], a, [boom])).toBe(ExitCode.ERROR);
    expect(a.stderr.text).toMatch(/^error\[E_INTERNAL\]: kaput\nhint: /);
    expect(a.stderr.text).not.toMatch(/\n\s+at /);
  });

  it('root help names every command', () => {
    const text = renderRootHelp([runCommand], '1.2.3');
    expect(text).toContain('goodput 1.2.3');
    expect(text).toContain(runCommand.summary);
  });

  it('lists each command lazily under the name and summary of its own spec', async () => {
    const names = new Set<string>();
    for (const entry of COMMANDS) {
      const spec = await entry.load();
      expect([entry.name, entry.summary]).toEqual([spec.name, spec.summary]);
      names.add(entry.name);
    }
    expect(names.size).toBe(COMMANDS.length);
    const text = renderRootHelp(COMMANDS, '1.2.3');
    for (const entry of COMMANDS) expect(text).toContain(entry.summary.split(' ').slice(0, 3).join(' '));
  });

  it('loads a lazy command only when it runs, and runs its help', async () => {
    let loads = 0;
    const lazy = {
      name: 'run',
      summary: runCommand.summary,
      load: async () => {
        loads++;
        return runCommand;
      },
    };
    const root = io();
    expect(await runCli(['--help'], root, [lazy])).toBe(ExitCode.OK);
    expect(await runCli(['--version'], root, [lazy])).toBe(ExitCode.OK);
    expect(loads).toBe(0);
    const help = io();
    expect(await runCli(['run', '--help'], help, [lazy])).toBe(ExitCode.OK);
    expect(loads).toBe(1);
    expect(help.stdout.text).toContain('--concurrency');
  });

  it('the README carries the flag tables generated from the option table', () => {
    // Compare table rows cell by cell: a Markdown formatter may pad cells and separator rows.
    const rows = (text: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith('|') && !/^[\s|:-]+$/.test(l))
        .map((l) =>
          l
            .split(/(?<!\\)\|/)
            .map((c) => c.trim())
            .join('|'),
        );
    const readme = rows(readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8')).join('\n');
    for (const [group, opts] of groupOptions(BENCHMARK_OPTIONS)) {
      expect(readme, `README flags table for ${group} is stale: run npm run docs:flags`).toContain(
        rows(renderOptionsMarkdown(opts)).join('\n'),
      );
    }
  });
});
