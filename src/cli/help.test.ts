import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capture } from '../../test/helpers/cli.js';
import { ExitCode } from '../errors.js';
import {
  BENCHMARK_OPTIONS,
  type AnyCommandSpec as CommandSpec,
  optionList,
  parseArgv,
} from '../flags/index.js';
import { COMMANDS } from './commands/index.js';
import { runCommand } from './commands/run.js';
import { runCli } from './dispatch.js';
import { examplesOf } from './examples.js';
import {
  groupOptions,
  optionSignature,
  renderCommandHelp,
  renderExamples,
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
    for (const opt of optionList(BENCHMARK_OPTIONS)) expect(text).toContain(optionSignature(opt));
    const headings = groupOptions(optionList(BENCHMARK_OPTIONS)).map(([g]) => `\n${g}:\n`);
    expect(headings).toEqual(['\nTarget:\n', '\nWorkload:\n', '\nTrace:\n', '\nLoad:\n', '\nOutput:\n']);
    const positions = headings.map((h) => text.indexOf(h));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // Each option sits under its own group's heading.
    for (const opt of optionList(BENCHMARK_OPTIONS)) {
      const at = text.indexOf(optionSignature(opt));
      const group = headings.findLastIndex((h) => text.indexOf(h) < at);
      expect(headings[group]).toBe(`\n${opt.group}:\n`);
    }
  });

  it('shows boolean defaults of true as --[no-]flag', () => {
    expect(
      optionSignature({
        name: 'server-metrics',
        key: 'serverMetrics',
        type: 'boolean',
        default: true,
        description: '',
      }),
    ).toBe('--[no-]server-metrics');
    expect(optionSignature({ name: 'json', key: 'json', type: 'boolean', description: '' })).toBe('--json');
    expect(
      optionSignature({
        name: 'concurrency',
        key: 'concurrency',
        short: 'c',
        type: 'integer',
        description: '',
      }),
    ).toBe('-c, --concurrency N');
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
      options: {},
      run: async () => {
        throw new Error('kaput');
      },
    };
    const a = io();
    expect(await runCli(['boom'], a, [boom])).toBe(ExitCode.ERROR);
    expect(a.stderr.text).toMatch(/^error\[E_INTERNAL\]: kaput\nhint: /);
    expect(a.stderr.text).not.toMatch(/\n\s+at /);
  });

  it('out of file descriptors anywhere (a module, a file) is E_FD_LIMIT naming ulimit -n, not a bug', async () => {
    const emfile = Object.assign(new Error("EMFILE: too many open files, open '/x/results.js'"), {
      code: 'EMFILE',
    });
    const boom: CommandSpec = {
      name: 'boom',
      summary: '',
      options: {},
      run: async () => {
        throw new Error('import failed', { cause: emfile });
      },
    };
    const a = io();
    expect(await runCli(['boom'], a, [boom])).toBe(ExitCode.USAGE);
    expect(a.stderr.text).toMatch(
      /^error\[E_FD_LIMIT\]: this process ran out of file descriptors.*: import failed\n/,
    );
    expect(a.stderr.text).toContain(
      'hint: raise the open-file limit in the shell that starts goodput (ulimit -n',
    );
    expect(a.stderr.text).not.toContain('bug');
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
    for (const [group, opts] of groupOptions(optionList(BENCHMARK_OPTIONS))) {
      expect(readme, `README flags table for ${group} is stale: run npm run docs:flags`).toContain(
        rows(renderOptionsMarkdown(opts)).join('\n'),
      );
    }
  });
});

describe('examples in every help', () => {
  /** Every command and subcommand as `--help` shows it: its path, spec and prefix. */
  async function allHelps(): Promise<Array<{ path: string; spec: CommandSpec; prefix: string }>> {
    const out: Array<{ path: string; spec: CommandSpec; prefix: string }> = [];
    for (const entry of COMMANDS) {
      const spec = await entry.load();
      out.push({ path: spec.name, spec, prefix: 'goodput' });
      for (const entry of spec.subcommands ?? []) {
        const sub = 'load' in entry ? await entry.load() : entry;
        out.push({ path: `${spec.name} ${sub.name}`, spec: sub, prefix: `goodput ${spec.name}` });
      }
    }
    return out;
  }

  it('each command and subcommand shows examples that parse with its own options, no line past 110', async () => {
    const helps = await allHelps();
    expect(helps.length).toBeGreaterThan(20);
    for (const { path, spec, prefix } of helps) {
      const examples = examplesOf(path);
      expect(examples.length, `${path} has no example`).toBeGreaterThan(0);
      const text = renderCommandHelp(spec, prefix);
      const block = text.slice(text.indexOf('\nExamples:\n'));
      expect(text.indexOf('\nExamples:\n'), path).toBeGreaterThan(0);
      for (const ex of examples) {
        expect(ex.command.startsWith(`goodput ${path}`), ex.command).toBe(true);
        expect(block).toContain(`# ${ex.what}`);
        // The example is one a user can type: its words parse with the command's own table.
        const words = ex.command
          .match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)!
          .map((w) => w.replace(/^(["'])(.*)\1$/, '$2'));
        const argv = words.slice(1 + path.split(' ').length);
        expect(() => parseArgv(spec, argv), ex.command).not.toThrow();
      }
      for (const line of text.split('\n')) expect(line.length, `${path}: ${line}`).toBeLessThanOrEqual(110);
    }
  });

  it('a long example is cut before a flag, with a shell continuation', () => {
    const lines = renderExamples(
      [{ command: `goodput run ${'--requests 100 '.repeat(10).trim()} --title "two words"`, what: 'long' }],
      60,
    );
    expect(lines[0]).toBe('  # long');
    for (const l of lines.slice(1, -1)) expect(l).toMatch(/ \\$/);
    for (const l of lines.slice(2)) expect(l).toMatch(/^ {6}--/);
    expect(lines.at(-1)).toContain('--title "two words"');
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
  });
});
