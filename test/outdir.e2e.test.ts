/**
 * The output folder is checked before any load: an unwritable `--out` (a file, a read-only
 * folder, no room to write) is a usage error with zero requests reaching the server, and an
 * earlier run's folder is refused unless `--force`, which removes that run's stale files. A
 * write that fails mid-run stops the load, saves the summary of what was measured (elsewhere
 * when the folder refuses it) and exits 7 (E_IO) saying where.
 */

import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import type { RequestRecord, RunSummary } from '../src/types.js';
import { ensureBuilt, jsonlLines, runBin, runCliInProcess, UNPRIVILEGED } from './helpers/cli.js';

/** A server that only counts: any connection or request reaching it is a failure of the check. */
interface Counter {
  url: string;
  connections: number;
  requests: number;
  close(): Promise<void>;
}

async function startCounter(): Promise<Counter> {
  const sockets = new Set<Socket>();
  const c = { connections: 0, requests: 0 } as Counter;
  const server: Server = createServer((_req, res) => {
    c.requests++;
    res.writeHead(500);
    res.end();
  });
  server.on('connection', (s: Socket) => {
    c.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  c.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  c.close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return c;
}

const LOAD = ['--requests', '4', '--concurrency', '2', '--max-tokens', '8', '--prompt-tokens', '32'];

let work: string;
let counter: Counter;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-outdir-e2e-'));
  chmodSync(work, 0o755); // the unprivileged child must reach its cwd
  counter = await startCounter();
  ensureBuilt();
}, 120_000);
afterAll(async () => {
  await counter.close();
  rmSync(work, { recursive: true, force: true });
});

describe('an unwritable --out is refused before the first request', () => {
  it('--out that is a file: exit 2 with the fix, the file untouched, nothing sent', async () => {
    const file = join(work, 'a-file');
    writeFileSync(file, 'keep me');
    const res = await runCliInProcess(['run', '--url', counter.url, '--model', 'm', ...LOAD, '--out', file], {
      cwd: work,
    });
    expect(res.code, res.stderr).toBe(ExitCode.USAGE);
    expect(res.stderr).toContain(`error[E_USAGE]: --out ${file} is a file, not a folder; nothing was sent`);
    expect(res.stderr).toMatch(/hint: pass --out a folder/);
    expect(res.stderr).not.toContain('E_INTERNAL');
    expect(counter.connections).toBe(0);
    expect(counter.requests).toBe(0);
  });

  it('a read-only folder (as an unprivileged user): exit 2, permission named, nothing sent, nothing written', async () => {
    const ro = join(work, 'read-only');
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    const out = join(ro, 'run');
    const res = await runBin(['run', '--url', counter.url, ...LOAD, '--out', out], {
      cwd: work,
      ...UNPRIVILEGED,
    });
    expect(res.code, res.stderr).toBe(ExitCode.USAGE);
    expect(res.stderr).toContain(`--out ${out} cannot be written: permission denied; nothing was sent`);
    expect(res.stderr).toContain('hint: pass --out a folder you can write to');
    expect(res.stderr).not.toContain('this is a bug');
    expect(counter.connections).toBe(0);
    expect(readdirSync(ro)).toEqual([]);
  });

  it('no room to write (file size limit 0, as a full disk): the fsync probe fails, exit 2, nothing sent', async () => {
    const out = join(work, 'no-room');
    const res = await runBin(['run', '--url', counter.url, ...LOAD, '--out', out], {
      cwd: work,
      prelude: 'ulimit -f 0',
    });
    expect(res.code, res.stderr).toBe(ExitCode.USAGE);
    expect(res.stderr).toContain(`--out ${out} cannot be written: the file size limit is reached`);
    expect(counter.connections).toBe(0);
    expect(readdirSync(out)).toEqual([]);
  });

  it('sweep checks its folder before the first point', async () => {
    const file = join(work, 'sweep-file');
    writeFileSync(file, 'x');
    const res = await runCliInProcess(
      [
        'sweep',
        '--url',
        counter.url,
        '--model',
        'm',
        '--concurrency',
        '1,2',
        '--requests',
        '2',
        '--out',
        file,
      ],
      { cwd: work },
    );
    expect(res.code, res.stderr).toBe(ExitCode.USAGE);
    expect(res.stderr).toContain('is a file, not a folder');
    expect(counter.connections).toBe(0);
  });
});

describe('an earlier run in --out', () => {
  const VIRTUAL = ['--time', 'virtual', '--requests', '6', '--concurrency', '2', '--max-tokens', '8'];

  it('is refused without --force (untouched, nothing sent); --force replaces it and removes its stale files', async () => {
    const out = join(work, 'again');
    const first = await runCliInProcess(['run', ...VIRTUAL, '--out', out, '--quiet'], { cwd: work });
    expect(first.code, first.stderr).toBe(ExitCode.OK);
    // the earlier run had scraped server metrics; the next one (virtual) will not
    writeFileSync(join(out, 'server-metrics.jsonl'), '{"kind":"goodput.server-metrics"}\n');
    const before = readdirSync(out).sort();

    const refused = await runCliInProcess(['run', '--url', counter.url, ...LOAD, '--out', out], {
      cwd: work,
    });
    expect(refused.code, refused.stderr).toBe(ExitCode.USAGE);
    expect(refused.stderr).toContain(`--out ${out} holds an earlier run`);
    expect(refused.stderr).toContain('--force');
    expect(counter.connections).toBe(0);
    expect(readdirSync(out).sort()).toEqual(before);

    const forced = await runCliInProcess(['run', ...VIRTUAL, '--out', out, '--force'], { cwd: work });
    expect(forced.code, forced.stderr).toBe(ExitCode.OK);
    expect(forced.stderr).toMatch(/--force: removed the earlier run's .*server-metrics\.jsonl/);
    expect(existsSync(join(out, 'server-metrics.jsonl'))).toBe(false);
    expect(readdirSync(out).sort()).toEqual(['requests.jsonl', 'summary.json']);
  });

  it('merge refuses an earlier run as its --out unless --force', async () => {
    const a = join(work, 'm-a');
    const b = join(work, 'm-b');
    for (const d of [a, b]) {
      expect((await runCliInProcess(['run', ...VIRTUAL, '--out', d, '--quiet'], { cwd: work })).code).toBe(0);
    }
    const out = join(work, 'm-out');
    expect((await runCliInProcess(['merge', a, b, '-o', out], { cwd: work })).code).toBe(0);
    const again = await runCliInProcess(['merge', a, b, '-o', out], { cwd: work });
    expect(again.code).toBe(ExitCode.USAGE);
    expect(again.stderr).toContain('holds an earlier run');
    const forced = await runCliInProcess(['merge', a, b, '-o', out, '--force'], { cwd: work });
    expect(forced.code, forced.stderr).toBe(ExitCode.OK);
  });
});

describe('a write that fails mid-run', () => {
  const ENDLESS = [
    '--requests',
    '100000',
    '--concurrency',
    '8',
    '--max-tokens',
    '16',
    '--prompt-tokens',
    '64',
  ];

  it('requests.jsonl hits the file size limit: the load stops there, the summary is saved, exit 7 says where', async () => {
    const out = join(work, 'full-mid-run');
    // 400 blocks of 512 bytes: the probe and the summary fit, the records of 100000 requests do not
    const res = await runBin(['run', ...ENDLESS, '--out', out], {
      cwd: work,
      prelude: 'ulimit -f 400',
      timeoutMs: 60_000,
    });
    const requests = join(out, 'requests.jsonl');
    const summaryPath = join(out, 'summary.json');
    expect(res.code, res.stderr).toBe(ExitCode.WRITE_FAILED);
    expect(res.stderr).toContain(`error[E_IO]: could not write ${requests} (the file size limit is reached)`);
    expect(res.stderr).toContain('the load was stopped there');
    expect(res.stderr).toContain(`is summarised in ${summaryPath}`);
    expect(res.stderr).not.toContain('this is a bug');
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as RunSummary;
    expect(summary.interrupted).toBe(true);
    // stopped soon after the failure, not after the whole load
    expect(summary.counts.attempted).toBeGreaterThan(0);
    expect(summary.counts.attempted).toBeLessThan(5_000);
    expect(res.stderr).toContain(`(${summary.counts.attempted} requests)`);
    // the file ends where the limit cut it (maybe mid-line); every whole record is one the summary counts
    const lines = readFileSync(requests, 'utf8').split('\n').slice(1, -1);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(summary.counts.attempted + summary.counts.warmup);
  }, 90_000);

  it('the folder turns read-only once checked: the summary is rescued under $TMPDIR, exit 7 names the path', async () => {
    const out = join(work, 'ro-mid-run');
    const tmp = join(work, 'tmp');
    for (const d of [out, tmp]) {
      mkdirSync(d);
      chmodSync(d, 0o777); // writable by the unprivileged child until the lock below
    }
    let locked = false;
    const res = await runBin(
      ['run', '--requests', '300', '--concurrency', '8', '--max-tokens', '16', '--out', out],
      {
        cwd: work,
        env: { TMPDIR: tmp },
        timeoutMs: 60_000,
        ...UNPRIVILEGED,
        onStderr: (text) => {
          if (!locked && text.includes('results:')) {
            locked = true;
            chmodSync(out, 0o555);
          }
        },
      },
    );
    expect(locked, res.stderr).toBe(true);
    chmodSync(out, 0o755);
    expect(res.code, res.stderr).toBe(ExitCode.WRITE_FAILED);
    // whether requests.jsonl was already open when the lock came is a race; summary.json never fits
    expect(res.stderr).toContain(`${join(out, 'summary.json')} (permission denied)`);
    expect(res.stderr).not.toContain('this is a bug');
    const rescued = /is summarised in (\S+summary\.json)/.exec(res.stderr)?.[1];
    expect(rescued, res.stderr).toBeDefined();
    expect(rescued!.startsWith(join(tmp, 'goodput-rescued-'))).toBe(true);
    const summary = JSON.parse(readFileSync(rescued!, 'utf8')) as RunSummary;
    expect(res.stderr).toContain(`(${summary.counts.attempted} requests)`);
    expect(summary.counts.attempted).toBeLessThanOrEqual(300);
    if (res.stderr.includes('requests.jsonl (permission denied)')) {
      // the records could not be written: the load was stopped at once, not run to the end
      expect(res.stderr).toContain('the load was stopped there');
      expect(summary.counts.attempted).toBeLessThan(300);
    } else {
      // the records went on streaming to the file opened before the lock
      const records = jsonlLines(join(out, 'requests.jsonl')).slice(1) as RequestRecord[];
      expect(records.length).toBe(summary.counts.attempted + summary.counts.warmup);
    }
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
  }, 90_000);
});
