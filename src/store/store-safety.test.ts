/**
 * The store keeps one history per target and one writer per file, and a write that fails
 * (disk full) is a coded I/O error that keeps what was written before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { GoodputError } from '../errors.js';
import { StoreHistogram } from './histogram.js';
import { WatchStore } from './store.js';
import type { StoredRound } from './types.js';

let dir: string;
let child: ChildProcess | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'goodput-store-safety-'));
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function round(target: string, n: number, at: number): StoredRound {
  const h = {
    ttft: new StoreHistogram(),
    tpot: new StoreHistogram(),
    itl: new StoreHistogram(),
    e2el: new StoreHistogram(),
  };
  for (const x of Object.values(h)) x.record(10 + n);
  return {
    target,
    round: n,
    startedAt: at,
    durationMs: 1000,
    valid: true,
    attempted: 4,
    completed: 4,
    failed: 0,
    good: 4,
    outputTokens: 64,
    proberLagMs: 0.1,
    errors: {},
    histograms: h,
  };
}

function errorOf(fn: () => unknown): GoodputError {
  try {
    fn();
  } catch (e) {
    return e as GoodputError;
  }
  throw new Error('expected an error');
}

describe('one history per target', () => {
  test('a name the store holds for another URL or model is refused, not overwritten', () => {
    const path = join(dir, 'g.db');
    const first = WatchStore.open(path);
    first.targetId('gw', 'http://gw/llama', 'A');
    first.addRound(round('gw', 1, Date.UTC(2026, 0, 1)));
    first.close();
    const second = WatchStore.open(path);
    const e = errorOf(() => second.targetId('gw', 'http://gw/qwen', 'B'));
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toContain("holds target 'gw' for http://gw/llama (model A)");
    expect(e.hint).toMatch(/--name/);
    // The same target again is its own history, continued.
    expect(second.targetId('gw', 'http://gw/llama', 'A')).toBeGreaterThan(0);
    expect(second.lastRound('gw')).toBe(1);
    expect(second.targets()).toEqual([{ name: 'gw', url: 'http://gw/llama', model: 'A' }]);
    second.close();
  });
});

describe('one writer per store', () => {
  test('a second writer is refused while the first holds the store; closing frees it', () => {
    const path = join(dir, 'g.db');
    const writer = WatchStore.open(path);
    const e = errorOf(() => WatchStore.open(path));
    expect(e.code).toBe('E_USAGE');
    expect(e.message).toMatch(new RegExp(`being written by another goodput watch \\(pid ${process.pid} `));
    // Readers are never refused (history reads while watch writes).
    WatchStore.open(path, { readonly: true }).close();
    writer.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
    WatchStore.open(path).close();
  });

  test("another live process's lock is refused; a dead process's lock is taken over, and said so", async () => {
    const path = join(dir, 'g.db');
    WatchStore.open(path).close();
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const pid = child.pid!;
    writeFileSync(`${path}.lock`, JSON.stringify({ pid, host: hostname(), since: '2026-12-03T10:00:00Z' }));
    expect(errorOf(() => WatchStore.open(path)).message).toContain(`pid ${pid} on ${hostname()}`);
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const store = WatchStore.open(path);
    expect(store.tookOverLockOf?.pid).toBe(pid);
    store.close();
  });
});

describe('a restarted container (same pid, same host) finds its former lock', () => {
  test('the lock of a former process with our pid is taken over, not refused', () => {
    const path = join(dir, 'g.db');
    WatchStore.open(path).close();
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: process.pid, host: hostname(), since: '2026-12-03T09:00:00Z' }),
    );
    const store = WatchStore.open(path);
    expect(store.tookOverLockOf?.since).toBe('2026-12-03T09:00:00Z');
    store.close();
  });
});

describe('a write that fails', () => {
  test('a full disk is E_IO naming the store and the round; the rounds before are kept', () => {
    const path = join(dir, 'g.db');
    const store = WatchStore.open(path);
    store.targetId('a', 'http://a', 'm');
    // The file may not grow beyond its current pages plus a few: the disk is full.
    const pages = store.db.pragma('page_count', { simple: true }) as number;
    store.db.pragma(`max_page_count = ${pages + 2}`);
    const t0 = Date.UTC(2026, 0, 1);
    let written = 0;
    let failure: GoodputError | undefined;
    for (let n = 1; n <= 500 && !failure; n++) {
      try {
        store.addRound(round('a', n, t0 + n * 60_000));
        written = n;
      } catch (e) {
        failure = e as GoodputError;
      }
    }
    expect(failure).toBeInstanceOf(GoodputError);
    expect(failure!.code).toBe('E_IO');
    expect(failure!.exitCode).toBe(7);
    expect(failure!.message).toContain(`the store ${path} could not be written (SQLITE_FULL`);
    expect(failure!.message).toContain(
      `round ${written + 1} of a was not stored; the rounds stored before it are kept`,
    );
    expect(failure!.hint).toMatch(/free space/);
    store.close();
    const reader = WatchStore.open(path, { readonly: true });
    expect(reader.lastRound('a')).toBe(written);
    expect(reader.rounds({ target: 'a' })).toHaveLength(written);
    reader.close();
  });
});
