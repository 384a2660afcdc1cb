/**
 * Helpers for end-to-end tests of the goodput binary: an in-process context with captured
 * streams, a fresh dist/ build when the sources are newer, a subprocess runner, a small
 * virtual run to compare against, a scratch directory of result files to read, and a few
 * readers of a result directory.
 *
 * @module
 */

import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { type AdrFrontMatter, serializeAdr } from '../../src/adr/index.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { runCli } from '../../src/cli/dispatch.js';
import type { CommandContext, CommandSpec, ParsedArgs } from '../../src/flags/index.js';
import type { RunSummary } from '../../src/types.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO, 'dist', 'cli', 'main.js');

export interface Captured {
  text: string;
  write(chunk: string): boolean;
  isTTY?: boolean;
}

export function capture(isTTY = false): Captured {
  const c: Captured = {
    text: '',
    isTTY,
    write(chunk: string) {
      c.text += chunk;
      return true;
    },
  };
  return c;
}

/** A CommandContext with captured stdout/stderr, the given env and cwd, and an abortable signal. */
export function context<V>(
  args: ParsedArgs<V>,
  cwd: string,
  env: Record<string, string | undefined> = {},
  signal: AbortSignal = new AbortController().signal,
): CommandContext<V> & { stdout: Captured; stderr: Captured } {
  return { args, stdout: capture(), stderr: capture(), env, cwd, signal };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/**
 * Makes sure dist/ reflects src/: after `npm ci` (CI) the prepare script has built it and
 * this is a no-op; in a working tree with newer sources it rebuilds (tsc emits even when
 * an unrelated file has a type error, so the bin still runs).
 */
export function ensureBuilt(): void {
  const fresh = existsSync(BIN) && statSync(BIN).mtimeMs >= newestMtime(join(REPO, 'src'));
  try {
    if (!fresh) {
      execFileSync(
        process.execPath,
        [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
        { cwd: REPO, stdio: 'pipe' },
      );
    }
  } catch {
    // type errors elsewhere still emit JavaScript; the existence check below is what matters
  }
  if (!existsSync(BIN)) throw new Error('dist/cli/main.js was not built');
  // As `npm run build` does (scripts/bin-executable.mjs): tsc writes the bin 0644.
  if ((statSync(BIN).mode & 0o111) === 0) chmodSync(BIN, 0o755);
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/cli/main.js ...args` and collects its output. `onStderr` sees stderr as it
 * arrives (with the child, e.g. to send it a signal); the child is killed after `timeoutMs`.
 */
export function runBin(
  args: string[],
  opts: {
    cwd: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    onStderr?: (text: string, child: ReturnType<typeof spawn>) => void;
    /** Run as this user and group (the test runs as root and needs permissions to bite). */
    uid?: number;
    gid?: number;
    /** Shell commands run before the binary in the same process, e.g. `ulimit -f 0`. */
    prelude?: string;
    /** Options for node itself, before the script (e.g. `--import` of a preload). */
    nodeArgs?: string[];
    /** Sees the child as soon as it is spawned (e.g. to signal it later). */
    onSpawn?: (child: ReturnType<typeof spawn>) => void;
  },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...opts.env };
    const node = [...(opts.nodeArgs ?? []), BIN, ...args];
    const [command, argv] = opts.prelude
      ? ['/bin/sh', ['-c', `${opts.prelude}; exec "$0" "$@"`, process.execPath, ...node]]
      : [process.execPath, node];
    const child = spawn(command, argv, {
      cwd: opts.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
      ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
    });
    opts.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      opts.onStderr?.(stderr, child);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** node options that make the child print `peak-rss-kib=N` (its peak resident memory) on stderr as it exits. */
/**
 * runBin options that drop to `nobody` when the tests run as root (as in CI), where every
 * folder is writable and a permission case would not bite; empty otherwise.
 */
export const UNPRIVILEGED: { uid?: number; gid?: number } =
  process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

export const PEAK_RSS_ARGS = [
  '--import',
  `data:text/javascript,process.on('exit',()=>process.stderr.write('\\npeak-rss-kib='+process.resourceUsage().maxRSS+'\\n'))`,
];

/** The peak RSS (MiB) a child run with {@link PEAK_RSS_ARGS} reported. */
export function peakRssMiB(stderr: string): number {
  const m = /peak-rss-kib=(\d+)/.exec(stderr);
  if (!m) throw new Error(`no peak-rss line in stderr: ${stderr.slice(-500)}`);
  return Number(m[1]) / 1024;
}

/** Every file under dir (recursively), with its text. */
export function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, text: readFileSync(path, 'utf8') });
  }
  return out;
}

/** The summary.json of a run's result directory, parsed (not validated: a test reads what was written). */
export function readRunSummary(dir: string): RunSummary {
  return JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary;
}

/** The lines of a JSONL file, parsed (header first). */
export function jsonlLines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
}

/** What one in-process goodput invocation exited with and wrote. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one goodput invocation in-process (the same dispatcher as the binary) with captured
 * streams, a fresh signal, and the given cwd and environment.
 */
export async function runCliInProcess(
  argv: readonly string[],
  opts: { cwd: string; env?: Record<string, string | undefined>; commands?: readonly CommandSpec[] },
): Promise<CliResult> {
  const stdout = capture();
  const stderr = capture();
  const code = await runCli(
    argv,
    { stdout, stderr, env: opts.env ?? {}, cwd: opts.cwd, signal: new AbortController().signal },
    opts.commands ?? COMMANDS,
  );
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/**
 * Runs a small virtual benchmark in-process into `out` (30 requests 4 wide, 32-token prompts,
 * 8 tokens out, quiet): the goodput run that tests of the result readers compare and gate
 * against. Returns the run's exit code and output for the caller to check.
 */
export function smallVirtualRun(
  out: string,
  opts: { cwd: string; env?: Record<string, string | undefined> },
): Promise<CliResult> {
  return runCliInProcess(
    [
      'run',
      '--time',
      'virtual',
      '--requests',
      '30',
      '--concurrency',
      '4',
      '--prompt-tokens',
      '32',
      '--max-tokens',
      '8',
      '--out',
      out,
      '--quiet',
    ],
    opts,
  );
}

/**
 * Runs `goodput run --time virtual <flags> --out dir --quiet` in-process (cwd `dir`), checks it
 * exited 0 with no error on stderr (notes may be there), and returns the summary it wrote.
 */
export async function virtualRunSummary(dir: string, flags: readonly string[]): Promise<RunSummary> {
  const { code, stderr } = await runCliInProcess(
    ['run', '--time', 'virtual', ...flags, '--out', dir, '--quiet'],
    { cwd: dir },
  );
  expect(stderr).not.toMatch(/error/i);
  expect(code).toBe(0);
  return readRunSummary(dir);
}

/** Writes each `[name, value]` as JSON to `dir/name`; returns the paths, in the order given. */
export function writeJsonFiles<const T extends ReadonlyArray<readonly [string, unknown]>>(
  dir: string,
  files: T,
): { -readonly [K in keyof T]: string } {
  return files.map(([name, value]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  }) as { -readonly [K in keyof T]: string };
}

/**
 * A scratch directory (under the OS temp dir, named from `prefix`) for the tests of the result
 * readers, made when the test file is collected: each `[name, value]` of `files` written there
 * as JSON (`paths`, in the order given), and `cli` running goodput in-process in the directory
 * with an empty environment. Registers a `beforeAll` that makes a small virtual goodput run at
 * `goodputRun` (throwing with its stderr if it fails) and an `afterAll` that removes the
 * directory.
 */
export function resultFilesWorkspace<const T extends ReadonlyArray<readonly [string, unknown]>>(
  prefix: string,
  files: T,
): {
  work: string;
  paths: { -readonly [K in keyof T]: string };
  goodputRun: string;
  cli: (argv: string[]) => Promise<CliResult>;
} {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const paths = writeJsonFiles(work, files);
  const goodputRun = join(work, 'goodput-run');
  beforeAll(async () => {
    const r = await smallVirtualRun(goodputRun, { cwd: work, env: {} });
    if (r.code !== 0) throw new Error(r.stderr);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  return { work, paths, goodputRun, cli: (argv) => runCliInProcess(argv, { cwd: work, env: {} }) };
}

/**
 * Writes an accepted ADR (ADR-20250102-001, "x") with the given front-matter fields to `path`:
 * the file the commands that read an ADR (gate, emit, lint) are given in tests.
 */
export function writeAdrFile(path: string, fields: Record<string, unknown>): string {
  const frontMatter = {
    schemaVersion: 1,
    id: 'ADR-20250102-001',
    title: 'x',
    date: '2025-01-02',
    status: 'accepted',
    ...fields,
  };
  writeFileSync(path, serializeAdr(frontMatter as unknown as AdrFrontMatter, '# x\n'));
  return path;
}
