/**
 * A run whose concurrency needs more file descriptors than `ulimit -n` allows (Linux, where the
 * limit is read from /proc): the client holds its pool within the limit, so no request fails for
 * want of a descriptor and the records file, opened before the connections, holds every request;
 * the numbers travel with the `open-files-limit` caveat naming the limit, and the server never
 * saw more at once than the pool held. Before, connections took every descriptor and the run
 * ended in E_IO (requests.jsonl could not be opened) or E_INTERNAL (a module loaded after them).
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESERVED_FILES } from '../src/client/source-addresses.js';
import { ExitCode } from '../src/errors.js';
import { ensureBuilt, readRunSummary, runBin } from './helpers/cli.js';
import { startTinyServer, type TinyServer } from './helpers/sse-server.js';

/** Enough for goodput to load its modules, far from enough for 200 connections. */
const OPEN_FILES = 160;
const CONCURRENCY = 200;
const REQUESTS = 200;

let work: string;
let server: TinyServer;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'goodput-open-files-'));
  server = await startTinyServer({ chunks: 4 });
  ensureBuilt();
}, 120_000);
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')(`ulimit -n ${OPEN_FILES} at concurrency ${CONCURRENCY}`, () => {
  it('holds the pool within the limit: every request measured and on disk, the caveat names the limit', async () => {
    const out = join(work, 'run');
    const res = await runBin(
      [
        'run',
        '--url',
        server.url,
        '--model',
        'tiny-model',
        '--concurrency',
        String(CONCURRENCY),
        '--requests',
        String(REQUESTS),
        '--max-tokens',
        '4',
        '--out',
        out,
        '--quiet',
      ],
      { cwd: work, prelude: `ulimit -n ${OPEN_FILES}`, timeoutMs: 60_000 },
    );
    expect(res.code, res.stderr).toBe(ExitCode.OK);
    expect(res.stderr).not.toMatch(/E_INTERNAL|E_IO|EMFILE/);

    const held = OPEN_FILES - RESERVED_FILES;
    const summary = readRunSummary(out);
    expect(summary.counts).toMatchObject({ attempted: REQUESTS, completed: REQUESTS, failed: 0 });
    expect(summary.errors).toEqual([]);
    expect(summary.load.connections).toMatchObject({ limit: held, openFilesLimit: OPEN_FILES });
    expect(summary.load.connections?.peakOpen).toBeLessThanOrEqual(held);
    expect(summary.load.connections?.serverLimited).toBe(false);
    const caveat = summary.caveats?.find((c) => c.id === 'open-files-limit');
    expect(caveat?.text).toContain(
      `at most ${held} connections: this process's open-file limit (ulimit -n ${OPEN_FILES})`,
    );
    expect(caveat?.severity).toBe('warn');
    // the server's side: never more requests at once than the pool held
    expect(server.maxInFlight).toBeLessThanOrEqual(held);

    // every request streamed to disk, after the header
    const lines = readFileSync(join(out, 'requests.jsonl'), 'utf8').trim().split('\n');
    expect(lines.length).toBe(1 + REQUESTS);
    expect(lines.slice(1).every((l) => (JSON.parse(l) as { outcome: string }).outcome === 'success')).toBe(
      true,
    );
  }, 90_000);
});
