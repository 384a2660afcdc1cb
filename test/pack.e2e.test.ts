// runs alone: an npm pack and install take most of a core for half a minute
/**
 * The package as a user gets it: packed from a clean build, installed from the tarball into
 * an empty project, then used three ways (the bin through npx, require() and a TypeScript
 * import checked without skipLibCheck). One install is shared by every assertion; it is the
 * slowest test of the suite.
 *
 * The bin, require() and the type check run side by side once the package is installed.
 *
 * The install uses --ignore-scripts: better-sqlite3's install step would compile its native
 * addon (minutes on this machine, with no prebuilt binary reachable), and nothing asserted
 * here opens a SQLite store (its addon loads on first use). --prefer-offline takes the
 * dependencies from npm's cache that `npm ci` filled; the registry is the fallback.
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GC_HEAP_FLAG } from '../src/metrics/index.js';
import { ensureBuilt, REPO } from './helpers/cli.js';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';

interface PackageJson {
  name: string;
  files: string[];
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  repository?: { url: string };
  homepage?: string;
  bugs?: { url: string };
  keywords?: string[];
  license: string;
}

const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as PackageJson;

let scratch: string;
let app: string;
let tarball: string;
let packed: string[];

/** Runs a command in the scratch app with a clean environment (no repo node_modules on the path). */
async function inApp(
  cmd: string,
  args: string[],
  timeout = 60_000,
): Promise<{ stdout: string; stderr: string }> {
  return run(cmd, args, {
    cwd: app,
    timeout,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? scratch,
      npm_config_update_notifier: 'false',
    },
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** The three ways a user meets the package, started together once installed (2 cores: the type check is the long one). */
let uses: {
  bin: Promise<{ stdout: string; stderr: string }>;
  require: Promise<{ stdout: string; stderr: string }>;
  typecheck: Promise<{ stdout: string; stderr: string }>;
};

const REQUIRE_SCRIPT = [
  "const g = require('goodput');",
  "import('goodput').then((m) => console.log(JSON.stringify({ same: m.runBenchmark === g.runBenchmark, fn: typeof g.runBenchmark, n: Object.keys(g).length })));",
].join('\n');

const CONSUMER_TS = [
  "import { GoodputError, runBenchmark, type BenchmarkConfig, type RunSummary } from 'goodput';",
  'export async function p99Ttft(config: BenchmarkConfig): Promise<number> {',
  '  const summary: RunSummary = (await runBenchmark(config, { cwd: process.cwd(), quiet: true })).summary;',
  '  return summary.p99_ttft_ms;',
  '}',
  "export const e: Error = new GoodputError('E_USAGE', 'm', 'h');",
  '',
].join('\n');

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'goodput-pack-'));
  // What `npm pack` publishes from a fresh checkout: the package's `files`, dist/ as built
  // (`npm run build` empties dist/ first). Source maps left in a working tree's dist/ by an
  // older build are not copied: that the build makes none is asserted on its config below.
  ensureBuilt();
  const src = join(scratch, 'src');
  mkdirSync(src);
  cpSync(join(REPO, 'package.json'), join(src, 'package.json'));
  for (const entry of pkg.files) {
    cpSync(join(REPO, entry), join(src, entry), {
      recursive: true,
      filter: (from) => !from.endsWith('.map'),
    });
  }
  const out = await run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], {
    cwd: src,
    timeout: 60_000,
  });
  const info = JSON.parse(out.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = join(scratch, info[0]!.filename);
  packed = info[0]!.files.map((f) => f.path);

  app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  await inApp(
    NPM,
    [
      'install',
      tarball,
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    240_000,
  );
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        noEmit: true,
      },
      include: ['check.ts'],
    }),
  );
  writeFileSync(join(app, 'check.ts'), CONSUMER_TS);
  const settle = <T>(p: Promise<T>) => {
    p.catch(() => {}); // awaited by its test; no unhandled rejection before that
    return p;
  };
  const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
  uses = {
    bin: settle(inApp(NPX, ['--no', 'goodput', 'run', '--requests', '5', '--out', 'runs/first'], 150_000)),
    require: settle(inApp(process.execPath, ['-e', REQUIRE_SCRIPT])),
    typecheck: settle(
      inApp(process.execPath, [tsc, '-p', 'tsconfig.json'], 150_000).catch(
        (e: { stdout?: string; stderr?: string; message: string }) => ({
          stdout: e.stdout ?? e.message,
          stderr: e.stderr ?? '',
        }),
      ),
    ),
  };
}, 420_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the published package', () => {
  it('ships a licence, the docs a user copies, no source maps, and says where it comes from', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'bin/goodput.js',
        'cjs/index.cjs',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/main.js',
        'docs/ci/github-actions.yml',
        'docs/grafana/goodput.json',
      ]),
    );
    expect(packed.filter((p) => p.endsWith('.map'))).toEqual([]);
    expect(packed.filter((p) => p.endsWith('.test.js') || p.endsWith('.test.d.ts'))).toEqual([]);
    expect(readFileSync(join(REPO, 'LICENSE'), 'utf8')).toContain('Apache License');
    expect(pkg.license).toBe('Apache-2.0');
    expect(pkg.repository?.url).toMatch(/^git\+https:\/\//);
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs?.url).toMatch(/^https:\/\//);
    expect(pkg.keywords?.length).toBeGreaterThan(3);
  });

  it('installs with its type dependencies as real dependencies', () => {
    const installed = join(app, 'node_modules');
    expect(existsSync(join(installed, 'goodput', 'dist', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, '@types', 'better-sqlite3', 'index.d.ts'))).toBe(true);
    expect(existsSync(join(installed, '@types', 'node', 'index.d.ts'))).toBe(true);
    // nothing of the dev tool chain comes along
    for (const dev of Object.keys(pkg.devDependencies))
      expect([dev, existsSync(join(installed, dev))]).toEqual([dev, false]);
  });

  it('`npx goodput run --requests 5` measures the embedded engine, in a node started with the heap flag', async () => {
    const { stdout } = await uses.bin;
    expect(stdout).toMatch(/TTFT/);
    const summary = JSON.parse(readFileSync(join(app, 'runs', 'first', 'summary.json'), 'utf8')) as {
      completed: number;
      failed: number;
      load: { gcPauses?: { heapFlag?: string } };
    };
    expect([summary.completed, summary.failed]).toEqual([5, 0]);
    // npm linked the bin's sh line, which started node with it (bin/goodput.js).
    expect(summary.load.gcPauses?.heapFlag).toBe(GC_HEAP_FLAG);
  }, 150_000);

  it("`require('goodput')` loads the same API as import", async () => {
    const r = JSON.parse((await uses.require).stdout) as { same: boolean; fn: string; n: number };
    expect(r).toMatchObject({ same: true, fn: 'function' });
    expect(r.n).toBeGreaterThan(30); // the curated entry (src/index.ts): every runtime name of it
  }, 60_000);

  it('a TypeScript file importing the API type-checks without skipLibCheck', async () => {
    const result = await uses.typecheck;
    expect(`${result.stdout}${result.stderr}`).toBe('');
  }, 150_000);

  it('the build emits no source maps (they would point at sources the package does not ship)', async () => {
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const { stdout } = await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--showConfig'], {
      cwd: REPO,
    });
    const options = (JSON.parse(stdout) as { compilerOptions: Record<string, unknown> }).compilerOptions;
    expect([
      options.sourceMap ?? false,
      options.declarationMap ?? false,
      options.inlineSourceMap ?? false,
    ]).toEqual([false, false, false]);
  });
});

describe('dependencies', () => {
  /** Every file of the project's own code that may import a package. */
  function sources(dir: string): string[] {
    const out: string[] = [];
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) out.push(...sources(path));
      else if (/\.(ts|mts|mjs|js|cjs)$/.test(entry.name)) out.push(path);
    }
    return out;
  }

  it('every dependency and dev dependency is used (type packages and tools by their consumers)', () => {
    const code = ['src', 'test', 'bench', 'scripts', 'cjs']
      .filter((d) => existsSync(join(REPO, d)))
      .flatMap((d) => sources(join(REPO, d)))
      .concat(join(REPO, 'vitest.config.ts'))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const usedBy: Record<string, () => boolean> = {
      typescript: () => existsSync(join(REPO, 'tsconfig.json')),
      '@biomejs/biome': () => existsSync(join(REPO, 'biome.json')),
    };
    const unused = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((name) => {
      if (usedBy[name]) return !usedBy[name]();
      const target = name.startsWith('@types/')
        ? name.slice('@types/'.length).replace(/^(.+)__(.+)$/, '@$1/$2')
        : name;
      if (target === 'node') return !/from 'node:/.test(code);
      // A lazy import may put the specifier on its own line (the formatter does for long ones).
      return !new RegExp(`(from |import\\(\\s*|require(?:\\.resolve)?\\(\\s*)'${target}(/[^']*)?'`).test(
        code,
      );
    });
    expect(unused).toEqual([]);
  });
});
