/**
 * The `goodput` command (bin/goodput.js), run as npm links it: a symlink to a file that sh
 * runs first. Its sh lines must replace the shell with node started with the CLI's options
 * (the heap flag and the pretenuring flag; one V8 background thread on ≤ 2 cores) by exec
 * (one process, so a signal sent to the pid the caller spawned reaches goodput), hand every
 * argument over unchanged, and the run must know it started so (summary
 * `load.gcPauses.heapFlag` and `pretenuringFlag`); a process started by `node
 * dist/cli/main.js` must claim neither.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GC_HEAP_FLAG, GC_PRETENURING_FLAG } from '../src/metrics/index.js';
import { ensureBuilt, REPO, readRunSummary, runBin } from './helpers/cli.js';

const BIN_FILE = join(REPO, 'bin', 'goodput.js');
const dir = mkdtempSync(join(tmpdir(), 'goodput-bin-command-'));
/** Where npm puts it: node_modules/.bin/goodput, a symlink to the package's bin. */
const LINK = join(dir, 'goodput');

beforeAll(() => {
  ensureBuilt();
  symlinkSync(BIN_FILE, LINK);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** busybox, when this machine has it: Alpine's /bin/sh, where `env -S` of a shebang is missing. */
const BUSYBOX = (() => {
  try {
    return execFileSync('/bin/sh', ['-c', 'command -v busybox'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

/**
 * The node options of the bin's sh lines, as bench/lib/cli-node-flags.mjs reads them for the
 * benches (the one reader of that line): the tests below hold them against the process the
 * bin really starts.
 */
function binNodeFlags(): string[] {
  const reader = join(REPO, 'bench', 'lib', 'cli-node-flags.mjs');
  const out = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `console.log(JSON.stringify((await import(${JSON.stringify(reader)})).cliNodeFlags()))`,
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out) as string[];
}

/** Runs the link as a program (its shebang picks sh), PATH as the caller's. */
function runLink(
  args: string[],
  onStderr?: (text: string, pid: number) => void,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(LINK, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr, child.pid!);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

describe('the goodput command', () => {
  it('starts node with the GC flags the gc-pauses caveat names (one definition each side, held equal here)', () => {
    expect(binNodeFlags()).toContain(GC_HEAP_FLAG);
    expect(binNodeFlags()).toContain(GC_PRETENURING_FLAG);
  });

  it.runIf(process.platform === 'linux')(
    'is one process: node with the flag and the arguments as given, which a SIGINT to the spawned pid stops',
    async () => {
      let cmdline: string[] | undefined;
      let sent = false;
      const res = await runLink(
        ['sim', '--port', '0', '--served-model-name', 'a model, with spaces'],
        (text, pid) => {
          if (sent || !/goodput sim: http:\/\/127\.0\.0\.1:\d+/.test(text)) return;
          sent = true;
          // The pid the caller spawned is node's own now (exec), not a shell's waiting on it.
          cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
          process.kill(pid, 'SIGINT');
        },
      );
      expect(sent, res.stderr).toBe(true);
      expect(cmdline!.slice(1)).toEqual([
        ...binNodeFlags(),
        LINK,
        'sim',
        '--port',
        '0',
        '--served-model-name',
        'a model, with spaces',
      ]);
      expect(res.stderr).toContain('SIGINT: stopping');
      expect(res.stderr).toContain('goodput sim: stopped');
      expect([res.code, res.signal]).toEqual([0, null]);
    },
    40_000,
  );

  it.each<[string, string | undefined, boolean]>([
    ['one core', '1', true],
    ['two cores', '2', true],
    ['eight cores', '8', false],
    ['a count it cannot read', undefined, false],
  ])("V8's thread pool: one thread on %s, node's own otherwise", (name, cores, one) => {
    // A node that prints what it is given, and the machine's core count as getconf and nproc say it.
    const shims = join(dir, `shims-${name.replace(/\W+/g, '-')}`);
    mkdirSync(shims);
    const say = (file: string, body: string) =>
      writeFileSync(join(shims, file), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    say('node', 'for a in "$@"; do printf "%s\\n" "$a"; done');
    say('getconf', cores === undefined ? 'exit 1' : `echo ${cores}`);
    say('nproc', cores === undefined ? 'exit 1' : `echo ${cores}`);
    const args = execFileSync('/bin/sh', [BIN_FILE, 'run'], {
      encoding: 'utf8',
      env: { PATH: `${shims}:/usr/bin:/bin` },
    }).split('\n');
    expect(args).toContain(GC_HEAP_FLAG);
    expect(args).toContain(GC_PRETENURING_FLAG);
    expect(args.includes('--v8-pool-size=1')).toBe(one);
    expect(args.slice(args.indexOf(BIN_FILE))).toEqual([BIN_FILE, 'run', '']);
  });

  it.runIf(BUSYBOX !== undefined)("runs under busybox's sh (Alpine's /bin/sh) too", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    const out = execFileSync(BUSYBOX!, ['sh', LINK, '--version'], { encoding: 'utf8', cwd: dir });
    expect(out.trim()).toBe(pkg.version);
  });

  it('a run started through it records the heap flag; one started by node itself does not', async () => {
    const args = (out: string) => [
      'run',
      '--requests',
      '3',
      '--prompt-tokens',
      '8',
      '--max-tokens',
      '4',
      '-o',
      out,
    ];
    const [viaBin, viaNode] = await Promise.all([
      runLink(args(join(dir, 'via-bin'))),
      runBin(args(join(dir, 'via-node')), { cwd: dir }),
    ]);
    expect(viaBin.code, viaBin.stderr).toBe(0);
    expect(viaNode.code, viaNode.stderr).toBe(0);
    const viaBinGc = readRunSummary(join(dir, 'via-bin')).load.gcPauses;
    expect(viaBinGc?.heapFlag).toBe(GC_HEAP_FLAG);
    expect(viaBinGc?.pretenuringFlag).toBe(GC_PRETENURING_FLAG);
    const plain = readRunSummary(join(dir, 'via-node')).load.gcPauses;
    expect(plain).toBeDefined();
    expect(plain!.heapFlag).toBeUndefined();
    expect(plain!.pretenuringFlag).toBeUndefined();
  }, 60_000);
});
