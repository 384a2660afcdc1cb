/**
 * The store: histogram percentiles against a plain sorted-array reference, merge exactness,
 * the binary codec, and the SQLite file (schemaVersion, migrations refusal, WAL with a reader
 * in a second connection while the writer writes, retention, windows).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createRng } from '../workload/index.js';
import { bucketIndex, bucketRange, StoreHistogram } from './histogram.js';
import { WatchStore } from './store.js';
import type { StoredRound } from './types.js';

function nearestRank(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function sample(seed: number, n: number, median: number, sigma: number): number[] {
  const rng = createRng(seed);
  return Array.from({ length: n }, () => median * Math.exp(sigma * rng.normal()));
}

describe('StoreHistogram', () => {
  test.each([
    [1, 10, 20, 0.3],
    [2, 300, 12, 0.1],
    [3, 5000, 400, 1.2],
    [4, 1, 0.05, 0.2],
    [5, 2000, 60_000, 0.5],
  ])(
    'seed %i, %i values around %f ms: percentiles within 0.8%% of the exact nearest rank',
    (seed, n, median, sigma) => {
      const values = sample(seed, n, median, sigma);
      const h = new StoreHistogram();
      for (const v of values) h.record(v);
      for (const p of [50, 90, 99, 99.9]) {
        const exact = nearestRank(values, p);
        // bucket middle: ≤ half a bucket (1/128 relative) off, plus 0.5 µs of rounding
        expect(Math.abs(h.percentile(p) - exact)).toBeLessThanOrEqual(exact / 128 + 0.0015);
      }
      expect(h.count).toBe(n);
      expect(h.mean).toBeCloseTo(values.reduce((a, b) => a + b, 0) / n, 6);
    },
  );

  test('bucket indices are monotonic and ranges tile the axis', () => {
    let previous = -1;
    for (let us = 0; us < 5_000_000; us = Math.floor(us * 1.01) + 1) {
      const i = bucketIndex(us);
      expect(i).toBeGreaterThanOrEqual(previous);
      const [lo, hi] = bucketRange(i);
      expect(us).toBeGreaterThanOrEqual(lo);
      expect(us).toBeLessThan(hi);
      previous = i;
    }
  });

  test('merging is exact: merged percentiles equal those of one histogram of all values', () => {
    const parts = [sample(7, 40, 30, 0.4), sample(8, 40, 90, 0.2), sample(9, 400, 15, 0.3)];
    const merged = new StoreHistogram();
    const all = new StoreHistogram();
    for (const part of parts) {
      const h = new StoreHistogram();
      for (const v of part) {
        h.record(v);
        all.record(v);
      }
      merged.merge(StoreHistogram.decode(h.encode()));
    }
    for (const p of [50, 90, 99]) expect(merged.percentile(p)).toBeCloseTo(all.percentile(p), 3);
    expect(merged.count).toBe(all.count);
  });

  test('codec round trip keeps buckets, count and (float32) min/max; empty is one byte', () => {
    const h = new StoreHistogram();
    for (const v of sample(11, 100, 250, 0.8)) h.record(v);
    const back = StoreHistogram.decode(h.encode());
    const sorted = (m: Map<number, number>) => [...m].sort((a, b) => a[0] - b[0]);
    expect(sorted(back.buckets)).toEqual(sorted(h.buckets));
    expect(back.count).toBe(h.count);
    expect(back.min).toBeCloseTo(h.min, 3);
    expect(back.max).toBeCloseTo(h.max, 2);
    expect(new StoreHistogram().encode()).toHaveLength(1);
    expect(StoreHistogram.decode(new StoreHistogram().encode()).percentile(99)).toBe(0);
  });
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'goodput-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function round(target: string, n: number, startedAt: number, values: number[], valid = true): StoredRound {
  const h = {
    ttft: new StoreHistogram(),
    tpot: new StoreHistogram(),
    itl: new StoreHistogram(),
    e2el: new StoreHistogram(),
  };
  for (const v of values) {
    h.ttft.record(v);
    h.e2el.record(v * 10);
  }
  return {
    target,
    round: n,
    startedAt,
    durationMs: 100,
    valid,
    attempted: values.length,
    completed: values.length,
    failed: 0,
    good: values.filter((v) => v < 100).length,
    outputTokens: 10,
    proberLagMs: 1,
    errors: {},
    histograms: h,
  };
}

describe('WatchStore', () => {
  test('schemaVersion in meta, WAL mode; a newer store is refused', () => {
    const path = join(dir, 'g.db');
    WatchStore.open(path).close();
    const db = new Database(path);
    expect(db.prepare("SELECT value FROM meta WHERE key='schemaVersion'").get()).toEqual({ value: '1' });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.prepare("UPDATE meta SET value='99' WHERE key='schemaVersion'").run();
    db.close();
    expect(() => WatchStore.open(path)).toThrow(/schema version 99, newer/);
  });

  test('a reader in a second connection reads while the writer writes', () => {
    const path = join(dir, 'g.db');
    const writer = WatchStore.open(path);
    writer.targetId('a', 'http://a', 'm');
    const reader = WatchStore.open(path, { readonly: true });
    const t0 = Date.UTC(2025, 0, 1);
    writer.db.exec('BEGIN');
    writer.addRound(round('a', 1, t0, [10, 20]));
    // the writer's transaction is open: the reader still sees the last committed state, without blocking
    expect(reader.rounds()).toHaveLength(0);
    writer.db.exec('COMMIT');
    expect(reader.rounds()).toHaveLength(1);
    for (let i = 2; i <= 20; i++) {
      writer.addRound(round('a', i, t0 + i * 1000, [i]));
      expect(reader.lastRound('a')).toBe(i);
    }
    reader.close();
    writer.close();
  });

  test('windows recompute percentiles from merged histograms; invalid rounds are left out; retention prunes', () => {
    const store = WatchStore.open(join(dir, 'g.db'));
    const hour = 3_600_000;
    const t0 = Date.UTC(2025, 0, 1);
    const first = [5, 6, 7, 8, 9, 10, 11, 12, 13, 200];
    const second = [50, 51, 52, 53, 54, 55, 56, 57, 58, 59];
    store.addRound(round('a', 1, t0, first));
    store.addRound(round('a', 2, t0 + 600_000, second));
    store.addRound(round('a', 3, t0 + 1_200_000, [9999], false));
    store.addRound(round('a', 4, t0 + hour, [30]));
    const w = store.windows(hour, { target: 'a' });
    expect(w.map((x) => [x.start, x.rounds, x.invalidRounds])).toEqual([
      [t0, 3, 1],
      [t0 + hour, 1, 0],
    ]);
    const union = [...first, ...second];
    for (const p of [50, 99] as const) {
      const exact = nearestRank(union, p);
      expect(Math.abs(w[0]!.latency.ttft[p === 50 ? 'p50' : 'p99'] - exact)).toBeLessThanOrEqual(
        exact / 256 + 0.001,
      );
    }
    expect(w[0]!.attainment).toBeCloseTo(19 / 20);
    expect(store.prune(t0 + hour)).toBe(3);
    expect(store.rounds().map((r) => r.round)).toEqual([4]);
    store.close();
  });
});
