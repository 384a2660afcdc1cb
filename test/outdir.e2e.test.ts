/**
 * The output folder is checked before any load: an unwritable `--out` (a file, a read-only
 * folder, no room to write) is a usage error with zero requests reaching the server, and an
 * earlier run's folder is refused unless `--force`, which removes that run's stale files.
 */

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../src/errors.js';
import { ensureBuilt, runBin, runCliInProcess } from './helpers/cli.js';

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
/** `nobody`: as root every folder is writable, so the permission cases drop to this user. */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

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
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
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
